"""Drives geoforge's push mirrors with the real python-gitlab 3.12 client, through
project.remote_mirrors (create, list, save), and the routes 3.12 has no method for (GET one, sync,
DELETE) with the client's own HTTP calls.

Usage: python_gitlab_remote_mirrors.py SECTION. MIRROR_URL names the remote (credentials in it).
Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import os
import time

from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def wait_for_status(gl, path, status):
    for _ in range(400):
        state = gl.http_get(path)
        if state["update_status"] == status:
            return state
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {status}: {state}")


def mirrors():
    gl = signed_in()
    project = gl.projects.create({"name": f"pgmirror{RUN}", "visibility": "private", "initialize_with_readme": True})
    mirror = project.remote_mirrors.create({"url": os.environ["MIRROR_URL"], "enabled": True})
    obs = {"created": {k: getattr(mirror, k) for k in ("enabled", "url", "only_protected_branches", "keep_divergent_refs", "auth_method")}}
    path = f"/projects/{project.id}/remote_mirrors/{mirror.id}"
    obs["finished"] = wait_for_status(gl, path, "finished")["last_error"]
    obs["listed"] = [m.id == mirror.id for m in project.remote_mirrors.list(get_all=True)]

    mirror.only_protected_branches = True
    mirror.save()
    obs["saved"] = gl.http_get(path)["only_protected_branches"]
    obs["bad_url"] = failure(lambda: project.remote_mirrors.create({"url": "ftp://example.com/x.git"}))

    gl.http_post(f"{path}/sync")
    obs["synced"] = wait_for_status(gl, path, "finished")["update_status"]
    gl.http_delete(path)
    obs["after_delete"] = project.remote_mirrors.list(get_all=True)
    obs["master"] = project.branches.get("master").commit["id"]
    return obs


main(mirrors)
