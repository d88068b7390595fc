"""Drives geoforge's epics with the real python-gitlab 3.12 client, through its own managers:
group.epics (create, list with filters, get, save, delete) and epic.issues (create, list, save
with move_before_id / move_after_id, delete).

Usage: python_gitlab_epics.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def epics():
    root = signed_in()
    group = root.groups.create({"name": f"pgle{RUN}", "path": f"pgle{RUN}", "visibility": "private"})
    obs = {}
    first = group.epics.create(
        {"title": "First", "description": "d", "start_date": "2031-01-01", "end_date": "2031-02-01", "labels": ["plan", "q1"]}
    )
    obs["created"] = {"iid": first.iid, "labels": first.labels, "start_date": first.start_date, "state": first.state}
    second = group.epics.create({"title": "Second search-me", "labels": ["q1"]})
    obs["list"] = [e.iid for e in group.epics.list(get_all=True)]
    obs["list_labels"] = [e.iid for e in group.epics.list(labels="plan", get_all=True)]
    obs["list_search"] = [e.iid for e in group.epics.list(search="search-me", get_all=True)]
    obs["list_asc"] = [e.iid for e in group.epics.list(order_by="created_at", sort="asc", get_all=True)]
    obs["list_author"] = len(group.epics.list(author_id=root.user.id, get_all=True))
    got = group.epics.get(first.iid)
    got.title = "First, edited"
    got.labels = ["later"]
    got.save()
    again = group.epics.get(first.iid)
    obs["saved"] = {"title": again.title, "labels": again.labels}
    obs["bad_date"] = failure(lambda: group.epics.create({"title": "x", "start_date": "not a date"}))
    obs["missing"] = failure(lambda: group.epics.get(999))
    group.epics.delete(second.iid)
    obs["after_delete"] = [e.iid for e in group.epics.list(get_all=True)]
    return obs


def epic_issues():
    root = signed_in()
    group = root.groups.create({"name": f"pglei{RUN}", "path": f"pglei{RUN}", "visibility": "private"})
    project = root.projects.create({"name": f"pglei{RUN}", "namespace_id": group.id})
    issues = [project.issues.create({"title": f"issue {n}"}) for n in range(4)]
    epic = group.epics.create({"title": "Ordered"})
    links = [epic.issues.create({"issue_id": issue.id}) for issue in issues]
    obs = {"links": [link.epic_issue_id for link in links], "issue_ids": [issue.id for issue in issues]}
    obs["listed"] = [i.epic_issue_id for i in epic.issues.list(get_all=True)]
    obs["again"] = failure(lambda: epic.issues.create({"issue_id": issues[0].id}))
    moving = epic.issues.list(get_all=True)[3]
    moving.move_before_id = links[0].epic_issue_id
    moving.save()
    obs["after_before"] = [i.epic_issue_id for i in epic.issues.list(get_all=True)]
    moving = [i for i in epic.issues.list(get_all=True) if i.epic_issue_id == links[0].epic_issue_id][0]
    moving.move_after_id = links[1].epic_issue_id
    moving.save()
    obs["after_after"] = [i.epic_issue_id for i in epic.issues.list(get_all=True)]
    epic.issues.delete(links[2].epic_issue_id)
    obs["after_delete"] = [i.epic_issue_id for i in epic.issues.list(get_all=True)]
    return obs


if __name__ == "__main__":
    main(epics, epic_issues)
