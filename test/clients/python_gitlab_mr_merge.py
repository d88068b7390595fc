"""Drives geoforge's merge request merging (merge, merge when pipeline succeeds and its cancel,
rebase, approvals) with the real python-gitlab 3.12 client, through its own managers.

Usage: python_gitlab_mr_merge.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import time

from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error


def setup(tag):
    """A project with a master branch, and a developer (acting through sudo) who is not the author."""
    gl = signed_in()
    project = gl.projects.create({"name": f"pglmerge{tag}{RUN}"})
    project.commits.create({"branch": "master", "commit_message": "init", "actions": [{"action": "create", "file_path": "README.md", "content": "one\n"}]})
    developer = new_user(gl, f"dev{tag}")
    project.members.create({"user_id": developer.id, "access_level": 30})
    return gl, project, developer


def branch_with_commit(project, branch, path, start="master"):
    project.branches.create({"branch": branch, "ref": start})
    return project.commits.create({"branch": branch, "commit_message": f"add {path}", "actions": [{"action": "create", "file_path": path, "content": "x\n"}]})


def wait_for(fn, timeout=20.0):
    deadline = time.time() + timeout
    while True:
        value = fn()
        if value or time.time() > deadline:
            return value
        time.sleep(0.1)


def merge():
    gl, project, developer = setup("m")
    head = branch_with_commit(project, "feature", "feature.txt")
    mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "master", "title": "Feature"})
    obs = {"created": mr.merge_status}
    obs["checked"] = wait_for(lambda: project.mergerequests.get(mr.iid).merge_status != "unchecked" and project.mergerequests.get(mr.iid).merge_status)
    obs["sha_mismatch"] = failure(lambda: mr.merge(sha="0" * 40))
    result = mr.merge(merge_commit_message="Merged by python-gitlab", should_remove_source_branch=True)
    master = project.branches.get("master").commit
    obs["merged"] = {"state": mr.state, "returned": result["state"], "merge_commit_is_master": mr.merge_commit_sha == master["id"], "parents": master["parent_ids"][1] == head.id}
    obs["message"] = project.commits.get(master["id"]).message
    obs["again"] = failure(lambda: mr.merge())
    obs["source_branch"] = failure(lambda: project.branches.get("feature"))
    return obs


def mwps():
    gl, project, developer = setup("w")
    head = branch_with_commit(project, "waiting", "waiting.txt")
    mr = project.mergerequests.create({"source_branch": "waiting", "target_branch": "master", "title": "Waits for CI"})
    project.commits.get(head.id).statuses.create({"state": "running", "ref": "waiting", "name": "ci"})
    mr.merge(merge_when_pipeline_succeeds=True)
    obs = {"flagged": {"state": mr.state, "mwps": mr.merge_when_pipeline_succeeds}}
    cancelled = mr.cancel_merge_when_pipeline_succeeds()
    obs["cancelled"] = {"state": cancelled["state"], "mwps": cancelled["merge_when_pipeline_succeeds"]}
    obs["cancel_again"] = failure(lambda: mr.cancel_merge_when_pipeline_succeeds())
    mr.merge(merge_when_pipeline_succeeds=True)
    project.commits.get(head.id).statuses.create({"state": "success", "ref": "waiting", "name": "ci"})
    obs["merged_on_success"] = wait_for(lambda: project.mergerequests.get(mr.iid).state == "merged")
    return obs


def rebase():
    gl, project, developer = setup("r")
    branch_with_commit(project, "behind", "behind.txt")
    mr = project.mergerequests.create({"source_branch": "behind", "target_branch": "master", "title": "Behind"})
    project.commits.create({"branch": "master", "commit_message": "moves on", "actions": [{"action": "create", "file_path": "later.txt", "content": "y\n"}]})
    target = project.branches.get("master").commit["id"]
    obs = {"started": mr.rebase()}
    obs["done"] = wait_for(lambda: not project.mergerequests.get(mr.iid).rebase_in_progress)
    head = project.branches.get("behind").commit
    obs["on_target"] = head["parent_ids"] == [target]
    return obs


def approvals():
    gl, project, developer = setup("a")
    settings = project.approvals.get()
    obs = {"settings": {"approvals_before_merge": settings.approvals_before_merge, "reset_approvals_on_push": settings.reset_approvals_on_push}}
    project.approvals.update(new_data={"approvals_before_merge": 1})
    obs["updated"] = project.approvals.get().approvals_before_merge
    head = branch_with_commit(project, "reviewed", "reviewed.txt")
    mr = project.mergerequests.create({"source_branch": "reviewed", "target_branch": "master", "title": "Reviewed"})
    state = mr.approvals.get()
    obs["state"] = {"required": state.approvals_required, "missing": state.approvals_missing, "approved_by": state.approved_by}
    obs["blocked"] = failure(lambda: mr.merge())
    obs["author"] = failure(lambda: mr.approve())
    approved = mr.approve(sha=head.id, sudo=developer.id)
    obs["approved"] = {"left": approved["approvals_left"], "by": [a["user"]["username"] for a in approved["approved_by"]]}
    mr.unapprove(sudo=developer.id)
    obs["unapprove_again"] = failure(lambda: mr.unapprove(sudo=developer.id))
    mr = project.mergerequests.get(mr.iid)
    mr.approve(sudo=developer.id)
    mr = project.mergerequests.get(mr.iid)
    mr.approvals.update(new_data={"approvals_required": 1})
    obs["merged"] = mr.merge()["state"]
    return obs


if __name__ == "__main__":
    main(merge, mwps, rebase, approvals)
