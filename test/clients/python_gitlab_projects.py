"""Drives geoforge's Groups and Projects APIs with the real python-gitlab 3.12 client.

Usage: python_gitlab_projects.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import base64
import time

from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error

# A 1x1 transparent PNG: an image upload gets alt without the extension and ![alt](url) markdown.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def ids(objects):
    return sorted(o.id for o in objects)


def groups():
    gl = signed_in()
    obs = {}

    parent = gl.groups.create({"name": f"Pgl Parent {RUN}", "path": f"pglparent{RUN}", "visibility": "public", "description": "first"})
    child = gl.groups.create({"name": "Pgl Child", "path": f"pglchild{RUN}", "parent_id": parent.id, "visibility": "public"})
    obs["created"] = {
        "parent": {"path": parent.path, "full_path": parent.full_path, "visibility": parent.visibility, "description": parent.description,
                   "parent_id": parent.parent_id, "web_url": parent.web_url},
        "child": {"full_path": child.full_path, "full_name": child.full_name, "parent_id": child.parent_id},
        "parent_id": parent.id,
        "child_id": child.id,
    }

    obs["list"] = {
        "search": ids(gl.groups.list(search=f"pglparent{RUN}", get_all=False)),
        "search_both": ids(gl.groups.list(search=RUN, get_all=False)),
        "skip": ids(gl.groups.list(search=RUN, skip_groups=[child.id], get_all=False)),
        "by_path_desc": [g.path for g in gl.groups.list(search=RUN, order_by="path", sort="desc", get_all=False)],
    }
    # A project in the group: GroupDetail lists it, and so does group.projects (GET /groups/:id/projects).
    inside = gl.projects.create({"name": f"pglin{RUN}", "namespace_id": parent.id})
    obs["inside"] = {"id": inside.id, "path_with_namespace": inside.path_with_namespace, "listed": ids(parent.projects.list(get_all=False))}
    obs["get"] = {
        "by_id": gl.groups.get(parent.id).full_path,
        "by_path": gl.groups.get(f"pglparent{RUN}/pglchild{RUN}").id,
        "detail_projects": [p["id"] for p in gl.groups.get(parent.id).attributes["projects"]],  # .projects is the manager
        "missing": failure(lambda: gl.groups.get(999999)),
        "missing_path": failure(lambda: gl.groups.get(f"nope{RUN}/nothing")),
    }

    # save() sends only the changed attributes with PUT /groups/:id.
    group = gl.groups.get(parent.id)
    group.description = "second"
    group.save()
    obs["updated"] = {"local": group.description, "server": gl.groups.get(parent.id).description, "name": gl.groups.get(parent.id).name}

    obs["subgroups"] = ids(parent.subgroups.list(get_all=False))
    obs["taken_path"] = failure(lambda: gl.groups.create({"name": f"Again {RUN}", "path": f"pglparent{RUN}"}))

    # Delete by manager (the child), then by object (the parent).
    gl.groups.delete(child.id)
    obs["after_child_delete"] = {"child": failure(lambda: gl.groups.get(child.id)), "subgroups": ids(parent.subgroups.list(get_all=False))}
    group.delete()
    obs["after_parent_delete"] = failure(lambda: gl.groups.get(parent.id))
    obs["project_after_parent_delete"] = failure(lambda: gl.projects.get(inside.id))
    obs["delete_again"] = failure(lambda: gl.groups.delete(parent.id))
    return obs


def group_members():
    gl = signed_in()
    group = gl.groups.create({"name": f"Pgl Team {RUN}", "path": f"pglteam{RUN}"})
    user = new_user(gl, "gm")
    obs = {"root_id": gl.user.id, "user_id": user.id}

    created = group.members.create({"user_id": user.id, "access_level": 30})
    obs["created"] = {"id": created.id, "username": created.username, "access_level": created.access_level}
    obs["listed"] = sorted([m.id, m.access_level] for m in group.members.list(get_all=False))
    member = group.members.get(user.id)
    member.access_level = 40
    member.save()
    obs["updated"] = group.members.get(user.id).access_level
    obs["duplicate"] = failure(lambda: group.members.create({"user_id": user.id, "access_level": 30}))
    group.members.delete(user.id)
    obs["after_delete"] = sorted([m.id, m.access_level] for m in group.members.list(get_all=False))
    obs["get_deleted"] = failure(lambda: group.members.get(user.id))
    group.delete()
    return obs


def projects():
    gl = signed_in()
    obs = {}

    # Create with a dict (JSON body) and with kwargs (python-gitlab sends those in the query string, body {}).
    by_dict = gl.projects.create({"name": f"pgldict{RUN}", "description": "made from a dict", "visibility": "private", "tag_list": ["a", "b"]})
    by_kwargs = gl.projects.create(name=f"pglkw{RUN}", visibility="public")
    internal = gl.projects.create({"name": f"pglint{RUN}", "visibility": "internal"})
    extra = [gl.projects.create({"name": f"pglx{i}{RUN}", "visibility": "private"}) for i in range(2)]
    other_user = new_user(gl, "po")
    theirs = other_user.projects.create({"name": f"pgltheirs{RUN}", "visibility": "public"})  # POST /projects/user/:id
    mine = [by_dict, by_kwargs, internal, *extra]
    obs["created"] = {
        "dict": {"name": by_dict.name, "path": by_dict.path, "path_with_namespace": by_dict.path_with_namespace, "visibility": by_dict.visibility,
                 "description": by_dict.description, "tag_list": by_dict.tag_list, "has_permissions": hasattr(by_dict, "permissions")},
        "kwargs": {"name": by_kwargs.name, "visibility": by_kwargs.visibility},
        "theirs_namespace": theirs.namespace["path"],
        "other_username": other_user.username,
    }
    obs["mine"] = sorted(p.id for p in mine)
    obs["theirs"] = theirs.id

    obs["list"] = {
        "owned": ids(gl.projects.list(owned=True, search=RUN, get_all=False)),
        "search_all": ids(gl.projects.list(search=RUN, get_all=False)),
        "search_one": ids(gl.projects.list(search=f"pgldict{RUN}", get_all=False)),
        "public": ids(gl.projects.list(search=RUN, visibility="public", get_all=False)),
        "internal": ids(gl.projects.list(search=RUN, visibility="internal", get_all=False)),
        "private": ids(gl.projects.list(search=RUN, visibility="private", get_all=False)),
    }
    # Pages of 2 followed through Link rel="next", eagerly and lazily.
    pages = gl.projects.list(search=RUN, per_page=2, iterator=True)
    lazily = [p.id for p in pages]
    eagerly = [p.id for p in gl.projects.list(search=RUN, per_page=2, get_all=True)]
    obs["pages"] = {"total": pages.total, "total_pages": pages.total_pages, "per_page": pages.per_page, "lazily": lazily, "eagerly": eagerly}

    got = gl.projects.get(by_dict.id)
    obs["get"] = {
        "by_id": got.path_with_namespace,
        "permissions": got.permissions,
        "by_path": gl.projects.get(by_dict.path_with_namespace).id,
        "theirs_by_path": gl.projects.get(f"{other_user.username}/{theirs.path}").id,
        "missing": failure(lambda: gl.projects.get(999999)),
        "missing_path": failure(lambda: gl.projects.get(f"nobody{RUN}/nothing")),
    }

    got.description = "changed by save"
    got.issues_enabled = False
    got.save()
    again = gl.projects.get(by_dict.id)
    obs["updated"] = {"local": got.description, "server": again.description, "issues_enabled": again.issues_enabled}

    obs["taken_name"] = failure(lambda: gl.projects.create({"name": f"pgldict{RUN}"}))
    gl.projects.delete(extra[0].id)
    extra[1].delete()
    obs["deleted"] = {
        "by_manager": failure(lambda: gl.projects.get(extra[0].id)),
        "by_object": failure(lambda: gl.projects.get(extra[1].id)),
        "again": failure(lambda: gl.projects.delete(extra[0].id)),
    }
    return obs


def project_actions():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pglact{RUN}", "visibility": "public"})

    # Star and unstar: a second star is a 304, which python-gitlab raises (GITLAB-NOTES W15).
    project.star()
    obs["star"] = {"count": project.star_count, "starred": project.id in [p.id for p in gl.projects.list(starred=True, get_all=False)]}
    obs["star_again"] = failure(project.star)
    project.unstar()
    obs["unstar"] = {"count": project.star_count, "server": gl.projects.get(project.id).star_count}
    obs["unstar_again"] = failure(project.unstar)

    # Archive hides the project from default lists; archived=True lists it again.
    project.archive()
    obs["archive"] = {
        "local": project.archived,
        "server": gl.projects.get(project.id).archived,
        "listed": project.id in [p.id for p in gl.projects.list(search=f"pglact{RUN}", get_all=False)],
        "listed_archived": project.id in [p.id for p in gl.projects.list(search=f"pglact{RUN}", archived=True, get_all=False)],
    }
    project.archive()  # idempotent
    project.unarchive()
    obs["unarchive"] = {"local": project.archived, "server": gl.projects.get(project.id).archived}

    # Share with a group at developer level (python-gitlab always sends expires_at: null), then unshare.
    group = gl.groups.create({"name": f"Pgl Share {RUN}", "path": f"pglshare{RUN}"})
    project.share(group.id, 30)
    obs["shared"] = gl.projects.get(project.id).shared_with_groups
    obs["share_again"] = failure(lambda: project.share(group.id, 30))
    obs["share_owner_level"] = failure(lambda: project.share(group.id, 50))
    project.unshare(group.id)
    obs["unshared"] = gl.projects.get(project.id).shared_with_groups
    obs["unshare_again"] = failure(lambda: project.unshare(group.id))
    obs["group"] = {"id": group.id, "name": group.name}
    return obs


def hooks():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglhooks{RUN}"})
    obs = {}
    hook = project.hooks.create({"url": "http://hooks.example.com/one", "issues_events": True, "wiki_page_events": True, "token": "secret"})
    obs["created"] = {
        "url": hook.url,
        "project_id": hook.project_id,
        "push_events": hook.push_events,
        "issues_events": hook.issues_events,
        "wiki_page_events": hook.wiki_page_events,
        "merge_requests_events": hook.merge_requests_events,
        "enable_ssl_verification": hook.enable_ssl_verification,
        "has_token": hasattr(hook, "token"),
    }
    obs["project_id"] = project.id
    obs["listed"] = [h.url for h in project.hooks.list(get_all=False)]
    got = project.hooks.get(hook.id)
    got.url = "http://hooks.example.com/two"
    got.merge_requests_events = True
    got.save()
    after = project.hooks.get(hook.id)
    obs["updated"] = {"url": after.url, "merge_requests_events": after.merge_requests_events, "issues_events": after.issues_events}
    got.delete()
    obs["after_delete"] = [h.id for h in project.hooks.list(get_all=False)]
    obs["get_deleted"] = failure(lambda: project.hooks.get(hook.id))
    # python-gitlab itself refuses a hook without url, so ask the server directly.
    obs["missing_url"] = failure(lambda: gl.http_post(f"/projects/{project.id}/hooks", post_data={"push_events": True}))
    return obs


def project_members():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglmem{RUN}"})
    user = new_user(gl, "pm")
    obs = {"root_id": gl.user.id, "user_id": user.id, "project_id": project.id}
    created = project.members.create({"user_id": user.id, "access_level": 30})
    obs["created"] = {"id": created.id, "username": created.username, "access_level": created.access_level}
    obs["listed"] = sorted([m.id, m.access_level] for m in project.members.list(get_all=False))
    member = project.members.get(user.id)
    member.access_level = 20
    member.save()
    obs["updated"] = project.members.get(user.id).access_level
    obs["users"] = [u.username for u in project.users.list(search=user.username, get_all=False)]
    obs["owner_level"] = failure(lambda: project.members.create({"user_id": new_user(gl, "pn").id, "access_level": 50}))
    project.members.delete(user.id)
    obs["after_delete"] = sorted([m.id, m.access_level] for m in project.members.list(get_all=False))
    obs["get_deleted"] = failure(lambda: project.members.get(user.id))

    # The member now sees the private project through sudo; a non-member does not.
    project.members.create({"user_id": user.id, "access_level": 10})
    obs["sees_as_member"] = gl.projects.get(project.id, sudo=user.username).id
    stranger = new_user(gl, "ps")
    obs["stranger"] = failure(lambda: gl.projects.get(project.id, sudo=stranger.username))
    return obs


def fork():
    gl = signed_in()
    other = new_user(gl, "fk")
    source = gl.projects.get(other.projects.create({"name": f"pglsrc{RUN}", "visibility": "public"}).id)
    group = gl.groups.create({"name": f"Pgl Forks {RUN}", "path": f"pglforks{RUN}"})
    obs = {"source_id": source.id, "group_id": group.id, "root_username": gl.user.username}

    # POST /projects/:id/fork with {}: into the caller's own namespace; then wait for the import.
    created = source.forks.create({})
    deadline = time.monotonic() + 10
    polled = gl.projects.get(created.id)
    while polled.import_status != "finished" and time.monotonic() < deadline:
        time.sleep(0.2)
        polled = gl.projects.get(created.id)
    obs["fork"] = {
        "id": created.id,
        "import_status": polled.import_status,
        "namespace": polled.namespace["full_path"],
        "path": polled.path,
        "forked_from_project": polled.forked_from_project["id"],
    }
    obs["fork_in_group"] = gl.projects.get(source.forks.create({"namespace": group.full_path}).id).namespace["id"]
    obs["forks"] = ids(source.forks.list(get_all=False))
    obs["forks_count"] = gl.projects.get(source.id).forks_count
    obs["fork_again"] = failure(lambda: source.forks.create({}))
    obs["missing_namespace"] = failure(lambda: source.forks.create({"namespace": f"nowhere{RUN}"}))
    return obs


def upload():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglup{RUN}", "visibility": "public"})
    text = project.upload("notes.txt", filedata=b"uploaded by python-gitlab\n")
    image = project.upload("pic.png", filedata=PNG)
    fetched = gl.session.get(project.web_url + text["url"], timeout=10)
    return {
        "text": text,
        "image": image,
        "web_url": project.web_url,
        "fetched": {"status": fetched.status_code, "body": fetched.text},
    }


if __name__ == "__main__":
    main(groups, group_members, projects, project_actions, hooks, project_members, fork, upload)
