"""Drives geoforge's issue tracker with the real python-gitlab 3.12 client, through its own managers:
project.issues (create, list with filters, get, save, delete, time stats, subscribe, todo),
project.labels and group.labels, project.milestones, gl.todos and project.events.

Usage: python_gitlab_tracker.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error


def member_client(root, project, tag, level):
    user = new_user(root, tag)
    project.members.create({"user_id": user.id, "access_level": level})
    token = user.impersonationtokens.create({"name": "issues", "scopes": ["api"]}).token
    gl = signed_in(token)
    return user, gl


def issues():
    root = signed_in()
    project = root.projects.create({"name": f"pgli{RUN}", "visibility": "private"})
    dev, _ = member_client(root, project, "idev", 30)
    _, guest_gl = member_client(root, project, "iguest", 10)
    milestone = project.milestones.create({"title": "v1", "due_date": "2031-01-01"})

    first = project.issues.create({"title": "First", "description": "- [x] a\n- [ ] b", "labels": ["bug", "ui"],
                                   "assignee_ids": [dev.id], "milestone_id": milestone.id})
    second = project.issues.create({"title": "Second", "labels": "bug"})
    third = project.issues.create({"title": "Third needle"})
    obs = {"created": {"iid": first.iid, "labels": first.labels, "assignees": [a["id"] for a in first.assignees],
                       "milestone": first.milestone["title"], "tasks": first.task_completion_status, "dev_id": dev.id}}
    obs["iids"] = [second.iid, third.iid]
    obs["list_all"] = [i.iid for i in project.issues.list(get_all=True)]
    obs["list_bug"] = [i.iid for i in project.issues.list(labels=["bug"], get_all=True)]
    obs["list_iids"] = [i.iid for i in project.issues.list(iids=[1, 3], order_by="created_at", sort="asc", get_all=True)]
    obs["list_search"] = [i.iid for i in project.issues.list(search="needle", get_all=True)]
    obs["list_milestone"] = [i.iid for i in project.issues.list(milestone="v1", get_all=True)]
    obs["list_assignee"] = [i.iid for i in project.issues.list(assignee_id=dev.id, get_all=True)]
    obs["page"] = [i.iid for i in project.issues.list(per_page=2, page=2, get_all=False)]

    issue = project.issues.get(first.iid)
    issue.title = "First, edited"
    issue.labels = ["ui", "later"]
    issue.save()
    obs["saved"] = {"title": issue.title, "labels": issue.labels}
    issue.state_event = "close"
    issue.save()
    obs["closed"] = {"state": issue.state, "closed_by": issue.attributes["closed_by"]["username"]}
    obs["list_closed"] = [i.iid for i in project.issues.list(state="closed", get_all=True)]
    issue.state_event = "reopen"
    issue.save()
    obs["reopened"] = issue.state

    issue.time_estimate("1d2h")
    issue.add_spent_time("1h30m")
    # time_stats() answers from the object's own attributes when it has them: ask through a lazy one.
    obs["time_stats"] = project.issues.get(first.iid, lazy=True).time_stats()
    issue.reset_spent_time()
    issue.reset_time_estimate()
    obs["time_stats_reset"] = project.issues.get(first.iid, lazy=True).time_stats()

    unsub = failure(lambda: issue.subscribe())  # root created it: already subscribed, 304
    obs["subscribe_again"] = unsub
    issue.unsubscribe()
    obs["subscribed_after_unsubscribe"] = project.issues.get(first.iid).subscribed
    issue.subscribe()
    obs["subscribed_after_subscribe"] = project.issues.get(first.iid).subscribed

    issue.todo()
    obs["todo_again"] = failure(lambda: issue.todo())
    obs["not_found"] = failure(lambda: project.issues.get(999))
    obs["bad_create"] = failure(lambda: project.issues.create({"title": "x", "due_date": "someday"}))
    obs["guest_edit"] = failure(lambda: guest_gl.projects.get(project.id, lazy=True).issues.update(second.iid, {"title": "mine"}))

    project.issues.delete(third.iid)
    obs["after_delete"] = [i.iid for i in project.issues.list(get_all=True)]
    obs["deleted_get"] = failure(lambda: project.issues.get(third.iid))
    obs["open_issues_count"] = root.projects.get(project.id).open_issues_count
    return obs


def labels():
    root = signed_in()
    group = root.groups.create({"name": f"pglg{RUN}", "path": f"pglg{RUN}"})
    project = root.projects.create({"name": f"pgll{RUN}", "namespace_id": group.id})
    project.labels.create({"name": "bug", "color": "#ff0000", "description": "Broken"})
    project.labels.create({"name": "feature", "color": "green"})
    group.labels.create({"name": "team", "color": "#00ff00"})
    obs = {"project_labels": sorted(l.name for l in project.labels.list(get_all=True))}
    obs["with_group"] = sorted(l.name for l in project.labels.list(include_ancestor_groups=True, get_all=True))
    obs["group_labels"] = [l.name for l in group.labels.list(get_all=True)]
    label = project.labels.get("bug")
    obs["got"] = {"name": label.name, "color": label.color, "description": label.description}
    label.new_name = "defect"
    label.color = "#aa0000"
    label.save()
    obs["renamed"] = sorted(l.name for l in project.labels.list(get_all=True))
    defect = project.labels.get("defect")
    defect.subscribe()
    obs["label_subscribed"] = project.labels.get("defect").subscribed
    obs["subscribe_again"] = failure(lambda: defect.subscribe())
    defect.unsubscribe()
    obs["duplicate"] = failure(lambda: project.labels.create({"name": "feature", "color": "#000000"}))
    obs["bad_color"] = failure(lambda: project.labels.create({"name": "x", "color": "notacolour"}))
    project.labels.delete("feature")
    glabel = group.labels.get("team")
    glabel.new_name = "squad"
    glabel.save()
    obs["group_renamed"] = [l.name for l in group.labels.list(get_all=True)]
    group.labels.delete("squad")
    obs["after_delete"] = sorted(l.name for l in project.labels.list(include_ancestor_groups=True, get_all=True))
    obs["group_after_delete"] = [l.name for l in group.labels.list(get_all=True)]
    return obs


def milestones():
    root = signed_in()
    project = root.projects.create({"name": f"pglm{RUN}"})
    m1 = project.milestones.create({"title": "v1", "start_date": "2030-01-01", "due_date": "2030-02-01"})
    m2 = project.milestones.create({"title": "v2"})
    obs = {"iids": [m1.iid, m2.iid], "listed": [m.title for m in project.milestones.list(get_all=True)]}
    project.issues.create({"title": "In v1", "milestone_id": m1.id})
    obs["issues"] = [i.title for i in project.milestones.get(m1.id).issues()]
    obs["merge_requests"] = list(project.milestones.get(m1.id).merge_requests())
    m2.state_event = "close"
    m2.description = "Done"
    m2.save()
    obs["closed"] = {"state": m2.state, "description": m2.description}
    obs["active"] = [m.title for m in project.milestones.list(state="active", get_all=True)]
    obs["by_title"] = [m.iid for m in project.milestones.list(title="v2", get_all=True)]
    obs["bad_dates"] = failure(lambda: project.milestones.create({"title": "v3", "start_date": "2030-03-01", "due_date": "2030-01-01"}))
    obs["duplicate"] = failure(lambda: project.milestones.create({"title": "v1"}))
    project.milestones.delete(m2.id)
    obs["after_delete"] = [m.title for m in project.milestones.list(get_all=True)]
    return obs


def todos():
    root = signed_in()
    project = root.projects.create({"name": f"pglt{RUN}", "visibility": "private"})
    dev, dev_gl = member_client(root, project, "tdev", 30)
    project.issues.create({"title": "Assigned", "assignee_ids": [dev.id]})
    project.issues.create({"title": "Mentioned", "description": f"see @{dev.username}"})
    addressed = project.issues.create({"title": "Addressed", "description": f"@{dev.username} please"})
    pending = dev_gl.todos.list(get_all=True)
    obs = {"pending": [[t.action_name, t.target["title"], t.author["username"], t.project["id"]] for t in pending]}
    obs["target_type"] = sorted({t.target_type for t in pending})
    obs["by_action"] = [t.target["title"] for t in dev_gl.todos.list(action="mentioned", get_all=True)]
    obs["by_project"] = len(dev_gl.todos.list(project_id=project.id, get_all=True))
    obs["by_type"] = len(dev_gl.todos.list(type="Issue", get_all=True))
    obs["by_author"] = len(dev_gl.todos.list(author_id=root.user.id, get_all=True))
    first = pending[0]
    first.mark_as_done()
    obs["marked"] = first.state
    obs["done"] = [t.target["title"] for t in dev_gl.todos.list(state="done", get_all=True)]
    dev_gl.todos.mark_all_as_done()
    obs["after_all"] = len(dev_gl.todos.list(get_all=True))
    dev_gl.projects.get(project.id, lazy=True).issues.get(addressed.iid).todo()
    obs["marked_todo"] = [[t.action_name, t.target["iid"]] for t in dev_gl.todos.list(get_all=True)]
    obs["bad_state"] = failure(lambda: dev_gl.todos.list(state="later", get_all=False))
    obs["root_todos"] = len(root.todos.list(project_id=project.id, get_all=True))

    issue = project.issues.get(addressed.iid)
    issue.state_event = "close"
    issue.save()
    issue.state_event = "reopen"
    issue.save()
    obs["events"] = [[e.action_name, e.target_type, e.target_title] for e in project.events.list(target_type="issue", sort="asc", get_all=True)]
    obs["closed_events"] = [e.target_iid for e in project.events.list(action="closed", get_all=True)]
    return obs


if __name__ == "__main__":
    main(issues, labels, milestones, todos)
