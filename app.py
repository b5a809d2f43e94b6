"""What a rater's link opens. Routing only: the flow lives in ui/rater.py."""
from ui.rater import run

run()
