"""Drives geoforge's issue links with the real python-gitlab 3.12 client, through issue.links
(create, list, delete), and reads an issue's resource weight events with the client's own HTTP
calls (3.12 has no manager for them).

Usage: python_gitlab_issue_links.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def links():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglinks{RUN}", "visibility": "private"})
    other = gl.projects.create({"name": f"pglinks-other{RUN}", "visibility": "private"})
    a = project.issues.create({"title": "A", "weight": 2})
    b = project.issues.create({"title": "B"})
    far = other.issues.create({"title": "Far"})

    source, target = a.links.create({"target_project_id": project.id, "target_issue_iid": b.iid, "link_type": "blocks"})
    obs = {"created": [source.iid, target.iid]}
    b.links.create({"target_project_id": other.path_with_namespace, "target_issue_iid": far.iid})
    obs["a_links"] = [[i.iid, i.link_type] for i in a.links.list(get_all=True)]
    b_links = b.links.list(get_all=True)
    obs["b_links"] = [[i.iid, i.project_id, i.link_type] for i in b_links]
    obs["duplicate"] = failure(lambda: a.links.create({"target_project_id": project.id, "target_issue_iid": b.iid}))
    obs["missing_target"] = failure(lambda: a.links.create({"target_project_id": project.id, "target_issue_iid": 999}))
    obs["blocking"] = project.issues.get(a.iid).blocking_issues_count

    b_links[0].delete()
    obs["after_delete"] = [i.iid for i in b.links.list(get_all=True)]
    obs["a_after_delete"] = [i.iid for i in a.links.list(get_all=True)]

    issue = project.issues.get(a.iid)
    issue.weight = 5
    issue.save()
    events = gl.http_list(f"/projects/{project.id}/issues/{a.iid}/resource_weight_events", get_all=True)
    obs["weights"] = [e["weight"] for e in events]
    obs["weight_event"] = gl.http_get(f"/projects/{project.id}/issues/{a.iid}/resource_weight_events/{events[1]['id']}")["weight"]
    return obs


main(links)
