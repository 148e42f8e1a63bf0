"""Finding the files a run looks at and reading them: discovery, decoding, notebooks, whether a file can be parsed."""
