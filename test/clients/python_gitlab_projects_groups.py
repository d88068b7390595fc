"""Drives geoforge's GitLab 17 project, group and user additions (group shares, bans, list filters) with the real python-gitlab 3.12 client.

Usage: python_gitlab_projects_groups.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error


def token_of(gl, user):
    return user.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token


def shares():
    gl = signed_in()
    obs = {}
    shared = gl.groups.create({"name": f"pglshared{RUN}", "path": f"pglshared{RUN}"})
    team = gl.groups.create({"name": f"pglteam{RUN}", "path": f"pglteam{RUN}"})
    project = gl.projects.create({"name": f"pglinside{RUN}", "namespace_id": shared.id})
    member = new_user(gl, "teammate")
    team.members.create({"user_id": member.id, "access_level": 40})
    as_member = signed_in(token_of(gl, member))

    shared.share(team.id, 30, expires_at="2999-12-31")
    obs["after_share"] = shared.shared_with_groups
    obs["read_back"] = gl.groups.get(shared.id).shared_with_groups
    obs["pushable"] = [p.id == project.id for p in as_member.projects.list(min_access_level=30, get_all=True)]
    obs["maintainable"] = [p.id for p in as_member.projects.list(min_access_level=40, get_all=True)]
    obs["again"] = failure(lambda: shared.share(team.id, 20))
    shared.unshare(team.id)
    obs["after_unshare"] = gl.groups.get(shared.id).shared_with_groups
    obs["unshare_again"] = failure(lambda: shared.unshare(team.id))
    obs["pushable_after"] = [p.id for p in as_member.projects.list(min_access_level=30, get_all=True)]
    return obs


def bans():
    gl = signed_in()
    obs = {}
    user = new_user(gl, "banned")
    token = token_of(gl, user)
    user.ban()
    obs["state"] = user.state
    obs["read_back"] = gl.users.get(user.id).state
    obs["token"] = failure(lambda: signed_in(token))
    obs["again"] = failure(lambda: user.ban())
    user.unban()
    obs["unbanned"] = [user.state, gl.users.get(user.id).state]
    obs["unban_again"] = failure(lambda: user.unban())
    obs["token_after"] = signed_in(token).user.username == user.username
    return obs


if __name__ == "__main__":
    main(shares, bans)
