"""What every python-gitlab 3.12 client script here shares: the site, the client, and how a run reports.

A script is run as `python3 python_gitlab_<family>.py SECTION` by test/helpers/python.ts, from this
folder's path, so `from python_gitlab_common import ...` finds this module (and, run that way,
with PYTHONDONTWRITEBYTECODE set, no __pycache__ is written next to the test files).
Environment: GEOFORGE_URL, GEOFORGE_TOKEN (root token with api+sudo), GEOFORGE_RUN (a unique
suffix for names).

A section prints one JSON object of observations on its last stdout line (main). Any unexpected
exception ends the run with a traceback and a non-zero exit; expected failures are caught and
recorded as {"error": class name, "code": response_code} (failure) so the vitest side asserts on them.
"""
import json
import os
import sys
import warnings

import gitlab
from gitlab import exceptions as exc

# Every warning python-gitlab raises (web_url mismatch in auth(), "list() returned only one page",
# deprecated arguments) is a symptom of a server that does not look like GitLab: make it fatal.
warnings.simplefilter("error")

URL = os.environ["GEOFORGE_URL"]
TOKEN = os.environ["GEOFORGE_TOKEN"]
RUN = os.environ["GEOFORGE_RUN"]


def client(token=TOKEN):
    return gitlab.Gitlab(URL, private_token=token)


def signed_in(token=TOKEN):
    """A client that has called auth() (warnings are errors: a web_url that does not start with URL raises here)."""
    gl = client(token)
    gl.auth()
    return gl


def failure(fn):
    """Runs fn expecting a python-gitlab error; records which one (or that none came)."""
    try:
        result = fn()
    except exc.GitlabError as e:
        return {"error": type(e).__name__, "code": e.response_code, "message": str(e.error_message)}
    return {"error": None, "result": repr(result)}


def new_user(gl, tag, **extra):
    name = f"pgl{tag}{RUN}"
    return gl.users.create(
        {"username": name, "email": f"{name}@example.com", "name": f"Pgl {tag}", "password": "password123", **extra}
    )


def main(*sections):
    """Runs the section the first argument names and prints its observations as one JSON line."""
    by_name = {section.__name__: section for section in sections}
    print(json.dumps(by_name[sys.argv[1]](), default=str))
