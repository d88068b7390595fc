"""Drives geoforge's issue tracker (issues, labels, milestones) with the real python-gitlab 3.12 client.

Usage: python_gitlab_issues.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def issues():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pglissues{RUN}", "visibility": "public"})
    target = gl.projects.create({"name": f"pglissuesto{RUN}"})
    milestone = project.milestones.create({"title": "1.0", "due_date": "2030-01-01"})

    first = project.issues.create({"title": "first", "description": "- [x] done\n- [ ] todo", "labels": ["bug", "ui"], "milestone_id": milestone.id})
    second = project.issues.create({"title": "second", "confidential": True})
    obs["created"] = {
        "first": {"iid": first.iid, "labels": first.labels, "milestone": first.milestone["title"], "has_tasks": first.has_tasks,
                  "task_completion_status": first.task_completion_status, "state": first.state},
        "second": {"iid": second.iid, "confidential": second.confidential},
    }

    obs["list"] = {
        "all": [i.iid for i in project.issues.list(get_all=False)],
        "labels": [i.iid for i in project.issues.list(labels=["bug"], get_all=False)],
        "iids": [i.iid for i in project.issues.list(iids=[2], get_all=False)],
        "milestone": [i.iid for i in project.issues.list(milestone="1.0", get_all=False)],
        "opened_asc": [i.iid for i in project.issues.list(state="opened", order_by="created_at", sort="asc", get_all=False)],
        "mine": [i.title for i in gl.issues.list(search=f"first", scope="created_by_me", get_all=False) if i.project_id == project.id],
        "all_pages": len(project.issues.list(per_page=1, get_all=True)),
    }

    got = project.issues.get(first.iid)
    got.title = "first, edited"
    got.labels = ["ui"]
    got.save()
    again = project.issues.get(first.iid)
    obs["saved"] = {"title": again.title, "labels": again.labels}
    got.state_event = "close"
    got.save()
    obs["closed"] = {"state": project.issues.get(first.iid).state, "closed_by": project.issues.get(first.iid).attributes["closed_by"]["username"]}  # .closed_by is the action

    obs["time"] = {
        "estimate": got.time_estimate("3h30m"),
        "spent": got.add_spent_time("1h"),
        "stats": project.issues.get(first.iid).time_stats(),
        "reset": got.reset_spent_time(),
        "reset_estimate": got.reset_time_estimate(),
        "bad": failure(lambda: got.time_estimate("soon")),
    }
    obs["subscribe"] = {
        "again": failure(lambda: got.subscribe()),  # the author follows it already: 304
    }
    got.unsubscribe()
    obs["subscribe"]["after_unsubscribe"] = project.issues.get(first.iid).subscribed
    got.subscribe()
    obs["subscribe"]["after_subscribe"] = project.issues.get(first.iid).subscribed

    obs["participants"] = [u["username"] for u in got.participants()]
    obs["closed_by"] = got.closed_by()
    obs["user_agent_detail"] = sorted(got.user_agent_detail().keys())

    moving = project.issues.get(second.iid)
    moving.move(target.id)
    obs["moved"] = {"project_id": moving.project_id, "iid": moving.iid, "old_state": project.issues.get(second.iid).state}

    project.issues.delete(first.iid)
    obs["deleted"] = failure(lambda: project.issues.get(first.iid))
    obs["missing"] = failure(lambda: project.issues.get(999))
    obs["project_id"] = project.id
    obs["target_id"] = target.id
    return obs


def labels():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"Pgl Labels {RUN}", "path": f"pgllabels{RUN}"})
    project = gl.projects.create({"name": f"pgllabelsp{RUN}", "namespace_id": group.id})

    bug = project.labels.create({"name": "bug", "color": "#FF0000", "description": "broken", "priority": 1})
    named = project.labels.create({"name": "named", "color": "green"})
    group_label = group.labels.create({"name": "from-group", "color": "#00FF00"})
    obs["created"] = {"bug": [bug.name, bug.color, bug.priority], "named": named.color, "group": [group_label.name, group_label.color]}
    obs["duplicate"] = failure(lambda: project.labels.create({"name": "bug", "color": "red"}))
    obs["bad_color"] = failure(lambda: project.labels.create({"name": "other", "color": "reddish"}))

    obs["list"] = sorted(label.name for label in project.labels.list(get_all=True))
    obs["group_list"] = [label.name for label in group.labels.list(get_all=True)]

    got = project.labels.get("bug")
    got.new_name = "defect"
    got.color = "#0000FF"
    got.save()
    obs["saved"] = {"local": got.name, "server": [project.labels.get("defect").name, project.labels.get("defect").color]}

    got.subscribe()
    obs["subscribed"] = project.labels.get("defect").subscribed
    got.unsubscribe()
    obs["unsubscribed"] = project.labels.get("defect").subscribed

    group_got = group.labels.get("from-group")
    group_got.description = "shared"
    group_got.save()
    obs["group_saved"] = group.labels.get("from-group").description

    obs["promoted"] = project.labels.get("named").promote()["name"]
    obs["after_promote"] = sorted(label.name for label in group.labels.list(get_all=True))

    project.labels.delete("defect")
    obs["deleted"] = failure(lambda: project.labels.get("defect"))
    group.labels.delete("from-group")
    obs["group_deleted"] = failure(lambda: group.labels.get("from-group"))
    return obs


def milestones():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"Pgl Milestones {RUN}", "path": f"pglmilestones{RUN}"})
    project = gl.projects.create({"name": f"pglmsp{RUN}", "namespace_id": group.id})

    first = project.milestones.create({"title": "v1", "start_date": "2030-01-01", "due_date": "2030-02-01"})
    second = project.milestones.create({"title": "v2"})
    obs["created"] = {"iids": [first.iid, second.iid], "state": first.state, "dates": [first.start_date, first.due_date]}
    obs["bad_dates"] = failure(lambda: project.milestones.create({"title": "v3", "start_date": "2030-03-01", "due_date": "2030-02-01"}))

    project.issues.create({"title": "in v1", "milestone_id": first.id})
    obs["issues"] = [issue.title for issue in first.issues()]
    obs["merge_requests"] = list(first.merge_requests())

    first.state_event = "close"
    first.save()
    obs["closed"] = project.milestones.get(first.id).state
    obs["list_active"] = [m.title for m in project.milestones.list(state="active", get_all=False)]
    obs["list_iids"] = [m.title for m in project.milestones.list(iids=[1], get_all=False)]

    promoted = second.promote()
    obs["promoted"] = {"title": promoted["title"], "group_id": promoted["group_id"]}
    obs["group_list"] = [m.title for m in group.milestones.list(get_all=False)]
    gm = group.milestones.create({"title": "group-made"})
    obs["group_created"] = {"iid": gm.iid, "title": gm.title}

    project.milestones.delete(first.id)
    obs["deleted"] = failure(lambda: project.milestones.get(first.id))
    return obs


if __name__ == "__main__":
    main(issues, labels, milestones)
