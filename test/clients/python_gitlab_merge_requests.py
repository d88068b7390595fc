"""Drives geoforge's merge requests with the real python-gitlab 3.12 client, through its own
managers: project.mergerequests (create, list with filters, get, save, delete), gl.mergerequests,
and a merge request's changes(), commits(), participants(), closes_issues(), diffs (versions),
notes, discussions, award emoji, subscribe()/unsubscribe() and todo().

Usage: python_gitlab_merge_requests.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def project_with_branches(root, name):
    """A project with master and two topic branches, each one commit ahead, through the commits API."""
    project = root.projects.create({"name": f"{name}{RUN}", "visibility": "private"})
    project.files.create({"file_path": "README.md", "branch": "master", "content": "hello\n", "commit_message": "Initial"})
    for branch in ("topic-a", "topic-b"):
        project.commits.create(
            {
                "branch": branch,
                "start_branch": "master",
                "commit_message": f"Add {branch}\n\nFixes #1",
                "actions": [{"action": "create", "file_path": f"{branch}.txt", "content": f"{branch}\n"}],
            }
        )
    return project


def merge_requests():
    root = signed_in()
    project = project_with_branches(root, "pglmr")
    issue = project.issues.create({"title": "To be closed"})
    obs = {"issue_iid": issue.iid}
    first = project.mergerequests.create(
        {"source_branch": "topic-a", "target_branch": "master", "title": "First", "labels": ["review", "x"], "description": "d", "remove_source_branch": True}
    )
    obs["created"] = {
        "iid": first.iid,
        "labels": first.labels,
        "state": first.state,
        "merge_status": first.merge_status,
        "changes_count": first.changes_count,
        "force_remove_source_branch": first.force_remove_source_branch,
        "subscribed": first.subscribed,
    }
    second = project.mergerequests.create({"source_branch": "topic-b", "target_branch": "master", "title": "WIP: Second"})
    obs["duplicate"] = failure(lambda: project.mergerequests.create({"source_branch": "topic-a", "target_branch": "master", "title": "again"}))
    obs["missing_branch"] = failure(lambda: project.mergerequests.create({"source_branch": "nope", "target_branch": "master", "title": "x"}))

    obs["list"] = [m.iid for m in project.mergerequests.list(get_all=True)]
    obs["list_labels"] = [m.iid for m in project.mergerequests.list(labels=["review"], get_all=True)]
    obs["list_iids"] = [m.iid for m in project.mergerequests.list(iids=[first.iid], get_all=True)]
    obs["list_asc"] = [m.iid for m in project.mergerequests.list(order_by="created_at", sort="asc", get_all=True)]
    obs["list_wip"] = [m.iid for m in project.mergerequests.list(wip="yes", get_all=True)]
    obs["list_simple"] = sorted(project.mergerequests.list(view="simple", get_all=True)[0].attributes.keys())
    obs["global"] = sorted(m.iid for m in root.mergerequests.list(scope="all", state="opened", get_all=True) if m.project_id == project.id)

    got = project.mergerequests.get(first.iid)
    got.title = "First, edited"
    got.labels = ["later"]
    got.save()
    again = project.mergerequests.get(first.iid)
    obs["saved"] = {"title": again.title, "labels": again.labels}
    second.state_event = "close"
    second.save()
    obs["closed"] = project.mergerequests.get(second.iid).state
    obs["list_closed"] = [m.iid for m in project.mergerequests.list(state="closed", get_all=True)]

    changes = again.changes()
    obs["changes"] = {"count": changes["changes_count"], "paths": [c["new_path"] for c in changes["changes"]]}
    obs["commits"] = [c.title for c in again.commits()]
    obs["participants"] = [p["username"] for p in again.participants()]
    obs["closes_issues"] = [i.iid for i in again.closes_issues()]
    versions = again.diffs.list(get_all=True)
    obs["versions"] = [{"state": v.state, "real_size": v.real_size} for v in versions]
    version = again.diffs.get(versions[0].id)
    obs["version"] = {"commits": len(version.commits), "diffs": [d["new_path"] for d in version.diffs]}
    obs["missing"] = failure(lambda: project.mergerequests.get(999))

    project.mergerequests.delete(second.iid)
    obs["after_delete"] = [m.iid for m in project.mergerequests.list(state="all", get_all=True)]
    return obs


def collaboration():
    root = signed_in()
    project = project_with_branches(root, "pglmrc")
    mr = project.mergerequests.create({"source_branch": "topic-a", "target_branch": "master", "title": "Talk about it"})
    obs = {}
    note = mr.notes.create({"body": "A comment"})
    obs["note"] = {"body": note.body, "noteable_type": note.noteable_type}
    note.body = "An edited comment"
    note.save()
    obs["notes"] = [n.body for n in mr.notes.list(get_all=True) if not n.system]
    position = {
        "base_sha": mr.diff_refs["base_sha"],
        "start_sha": mr.diff_refs["start_sha"],
        "head_sha": mr.diff_refs["head_sha"],
        "position_type": "text",
        "new_path": "topic-a.txt",
        "new_line": 1,
    }
    thread = mr.discussions.create({"body": "On this line", "position": position})
    obs["diff_note"] = {"type": thread.attributes["notes"][0]["type"], "resolvable": thread.attributes["notes"][0]["resolvable"]}
    thread.notes.create({"body": "A reply"})
    thread = mr.discussions.get(thread.id)
    obs["thread"] = [n["body"] for n in thread.attributes["notes"]]
    thread.resolved = True
    thread.save()
    obs["resolved"] = [n["resolved"] for n in mr.discussions.get(thread.id).attributes["notes"]]
    award = mr.awardemojis.create({"name": "thumbsup"})
    obs["award"] = award.name
    obs["upvotes"] = project.mergerequests.get(mr.iid).upvotes
    obs["note_award"] = note.awardemojis.create({"name": "tada"}).name
    mr.awardemojis.delete(award.id)
    obs["awards_after_delete"] = len(mr.awardemojis.list(get_all=True))

    obs["unsubscribe"] = mr.unsubscribe() is None and mr.subscribed
    obs["unsubscribe_again"] = failure(mr.unsubscribe)
    mr.subscribe()
    obs["subscribed"] = mr.subscribed
    obs["subscribe_again"] = failure(mr.subscribe)
    todo = mr.todo()
    obs["todo"] = todo is None
    obs["todos"] = [(t.action_name, t.target_type, t.target["iid"]) for t in root.todos.list(get_all=True) if t.target_type == "MergeRequest"]
    obs["todo_again"] = failure(mr.todo)
    obs["label_events"] = len(mr.resourcelabelevents.list(get_all=True))
    return obs


if __name__ == "__main__":
    main(merge_requests, collaboration)
