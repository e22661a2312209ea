"""The commands zizou runs for the model, as jobs: each in its own process group, its whole
output kept, in the foreground or the background, and all of them ended when zizou exits.

`run_bash` starts them (`JobTable.start`); `job_output`, `job_kill` and `read_output` read and
end them; the session owns its table (`Session.jobs`), and the app's `/jobs` lists it.
"""

from zizou.tools.jobs.job import Job, JobState
from zizou.tools.jobs.spool import OutputSpool
from zizou.tools.jobs.table import DEFAULT_BACKGROUND_AFTER_S, JobTable, next_job_number
from zizou.tools.jobs.view import output_ref, strip_terminal_controls

__all__ = [
    "DEFAULT_BACKGROUND_AFTER_S",
    "Job",
    "JobState",
    "JobTable",
    "OutputSpool",
    "next_job_number",
    "output_ref",
    "strip_terminal_controls",
]
