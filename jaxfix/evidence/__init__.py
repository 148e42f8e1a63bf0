"""What a run or a log tells: the recorder injected into the user's command, evidence files, the rules' message templates."""
