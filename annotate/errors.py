"""The base of refusals raised below the command line, which prints their message as one line."""


class Refusal(RuntimeError):
    "Something the user can fix (a server's answer, a setting): the message says what and how."
