"""Values and text helpers shared by every stage: diagnostics and results, escaping, quoting."""
