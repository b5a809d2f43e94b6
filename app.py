"""What a rater's link opens. Routing only: the flow lives in ui/rater.py."""
from fairval.ui.rater import run

run()
