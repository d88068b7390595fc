"""Drives geoforge's events API with the real python-gitlab 3.12 client: gl.events, user.events
and project.events, the managers python-gitlab offers for GitLab's events API.

Usage: python_gitlab_events.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import gitlab
from python_gitlab_common import RUN, URL, failure, main, new_user, signed_in  # also makes every warning an error


def summary(event):
    return {"action_name": event.action_name, "target_type": event.target_type, "author_username": event.author_username,
            "project_id": event.project_id, "push_data": getattr(event, "push_data", None)}


def events():
    root = signed_in()
    author = new_user(root, "ev")
    member = new_user(root, "evm")
    token = author.impersonationtokens.create({"name": "events", "scopes": ["api"]}).token
    gl = signed_in(token)

    project = gl.projects.create({"name": f"pglev{RUN}", "visibility": "public", "initialize_with_readme": True})
    project.files.create({"file_path": "notes.md", "branch": project.default_branch, "content": "hello", "commit_message": "Add notes\n\nbody"})
    project.members.create({"user_id": member.id, "access_level": 30})
    project.members.delete(member.id)
    doomed = gl.projects.create({"name": f"pglevdoomed{RUN}"})
    doomed.delete()

    obs = {"project_id": project.id, "doomed_id": doomed.id, "author_id": author.id, "member_username": member.username}
    obs["mine"] = [summary(e) for e in gl.events.list(sort="asc", get_all=True)]
    obs["project_pushes"] = [summary(e) for e in project.events.list(action="pushed", get_all=False)]
    obs["project_after"] = len(project.events.list(after="2000-01-01", get_all=False))
    obs["project_before"] = len(project.events.list(before="2000-01-01", get_all=False))
    obs["user_events_by_root"] = [e.action_name for e in root.users.get(author.id).events.list(get_all=False)]
    obs["member_events"] = [e.action_name for e in root.users.get(member.id).events.list(get_all=False)]
    obs["destroyed"] = [e.target_title for e in gl.events.list(target_type="project", get_all=False)]
    anonymous = gitlab.Gitlab(URL)
    obs["anonymous_user_events"] = len(anonymous.users.get(author.id, lazy=True).events.list(get_all=False))
    obs["anonymous_own"] = failure(lambda: anonymous.events.list(get_all=False))
    obs["bad_action"] = failure(lambda: project.events.list(action="bogus", get_all=False))
    return obs


if __name__ == "__main__":
    main(events)
