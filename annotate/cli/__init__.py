"""The command line, one module per command group (main: imports, numbers, exports, serving; study;
judge; llm; prolific) and what they share (common). Each command parses its options and calls a library
function, importing that function's room when it runs: `fairval --help` loads no pandas or scipy.

May import every room; nothing outside cli/ imports it.
"""
