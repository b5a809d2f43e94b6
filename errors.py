"""fairval's refusals: one root, one subclass per kind. Every user mistake (a file, a name, a setting, a
server's answer) raises one of these with a message that says what was wrong, where, and how to fix it.
The command line and every page catch `FairvalError` alone and show it as one line; any other exception
is a bug and is shown as one (a traceback in the log, a plain sentence on the page)."""
from pathlib import Path


class FairvalError(Exception):
    "Something the user can fix: the message says what was wrong, where, and what to do."


class StoreError(FairvalError):
    "A write the store refuses, or a database that cannot be opened: says what was required and found."


class NoSpace(StoreError):
    "No space left where the database lives: nothing of the change was stored."


class DatabaseUnreachable(StoreError):
    "A PostgreSQL URL whose server cannot be reached or refuses the connection: names the host, never the password."


class ServeRefused(FairvalError):
    "A server that would be reachable from other machines without a researcher password of its own."


class StudyError(FairvalError):
    "A study name or setting that cannot be used; the message says what is allowed."


class TaskError(FairvalError):
    "A task or question that does not exist or cannot be declared; names the ones there are."


class ImportProblem(FairvalError):
    "A file that cannot be imported; names the file, the line and the field. Nothing was written."

    def __init__(self, path, line: int | None, field: str | None, message: str):
        self.path, self.line, self.field = str(path), line, field
        where = Path(path).name + (f", line {line}" if line else "") + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {message}")


class LabelMismatch(FairvalError):
    "A group label or answer that is none of the question's answers by fairval's rule; names them and the nearest."
    field: str | None = None        # the file's field it came from, when a file is read


class AnswerError(FairvalError):
    "An answer that cannot be recorded; says which question and what is allowed."


class StudyClosed(AnswerError):
    "The study closed before the answer arrived: it takes no more answers."


class SlotTaken(AnswerError):
    "A late answer to an item that, meanwhile, other raters filled to the study's raters per item."


class RaterIdError(FairvalError):
    "A rater id that cannot be stored (empty, too long, or holding invisible characters)."


class RaterSourceError(RaterIdError):
    "A rater id that arrived one way (Prolific, a signed link, an open link) presented another way."


class GenerationError(FairvalError):
    "Material that cannot be generated from what was given; says which template or name and why."


class OutputError(FairvalError):
    "A file or folder fairval cannot write: the wrong kind of name, or a destination in the way."


class Refusal(FairvalError):
    "A service or a setting refused (the judge's server, Prolific): the message says what and how."


class JudgeError(Refusal):
    "The judge could not be run: the message says what the server answered and what to change."


class ProlificError(Refusal):
    "Prolific refused or could not be reached; the message says which call and why."


class OutcomeUnknown(ProlificError):
    "A call that changes something was sent, and whether Prolific carried it out is not known."


class PayOutcomeUnknown(StudyError):
    "A bonus batch was sent to Prolific and whether it was paid is not known; the message says what to check."


class NoLetter(JudgeError):
    "The judge answered an order without A, B or C (a small model saying 'Sure'): paid, saved as such."

    def __init__(self, message: str, answer):
        super().__init__(message)
        self.answer = answer            # annotate.judge.run.Answer: errors.py imports none of fairval


class QuotaRefused(JudgeError):
    "The account has no quota or credit left: the run stops at once."


class FrontMissing(Refusal):
    "HAProxy is not installed; the message says how to install it."


class ExportRefused(FairvalError):
    "A download asked for by a sign-in that no longer allows it."
