"""Drives geoforge's settings (badges, notification settings, user status, group hooks) with the real python-gitlab 3.12 client.

Usage: python_gitlab_settings.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error


def badge_view(badge):
    return {"kind": badge.kind, "link": badge.rendered_link_url, "image": badge.rendered_image_url}


def badges():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglbadges{RUN}", "path": f"pglbadges{RUN}"})
    project = gl.projects.create({"name": f"pglbadges{RUN}", "namespace_id": group.id, "initialize_with_readme": True})
    obs["path"] = project.path_with_namespace
    obs["id"] = project.id
    obs["fresh"] = [b.id for b in project.badges.list(get_all=True)]

    group_badge = group.badges.create({"link_url": "https://ci.example.com/%{project_path}", "image_url": "https://ci.example.com/%{project_id}.svg"})
    obs["group_badge"] = badge_view(group_badge)
    badge = project.badges.create({"link_url": "https://example.com/%{project_path}/-/tree/%{default_branch}", "image_url": "https://example.com/%{commit_sha}.svg"})
    obs["project_badge"] = badge_view(badge)
    obs["listed"] = [badge_view(b) for b in project.badges.list(get_all=True)]
    obs["group_listed"] = [b.kind for b in group.badges.list(get_all=True)]

    badge.image_url = "https://example.com/%{project_id}.png"
    badge.save()
    obs["saved"] = badge_view(project.badges.get(badge.id))
    obs["rendered"] = project.badges.render(link_url="https://x.test/%{project_path}", image_url="https://x.test/b.svg")
    obs["invalid"] = failure(lambda: project.badges.create({"link_url": "nope", "image_url": "https://x.test/b.svg"}))

    project.badges.delete(badge.id)
    obs["deleted"] = failure(lambda: project.badges.get(badge.id))
    group_badge.delete()
    obs["after"] = [b.id for b in project.badges.list(get_all=True)]
    return obs


def notifications():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglnotify{RUN}", "path": f"pglnotify{RUN}"})
    project = gl.projects.create({"name": f"pglnotify{RUN}", "namespace_id": group.id})

    settings = gl.notificationsettings.get()
    obs["global"] = {"level": settings.level, "email": settings.notification_email}
    settings.level = "custom"
    settings.new_note = True
    settings.save()
    fetched = gl.notificationsettings.get()
    obs["global_custom"] = {"level": fetched.level, "new_note": fetched.events["new_note"], "new_issue": fetched.events["new_issue"]}
    fetched.level = "participating"
    fetched.save()
    obs["global_after"] = gl.notificationsettings.get().level
    obs["bad_email"] = failure(lambda: gl.notificationsettings.update(new_data={"notification_email": f"nobody{RUN}@example.com"}))

    for name, source in (("project", project), ("group", group)):
        setting = source.notificationsettings.get()
        before = setting.level
        setting.level = "watch"
        setting.save()
        obs[name] = [before, source.notificationsettings.get().level]
    obs["bad_level"] = failure(lambda: project.notificationsettings.update(new_data={"level": "loud"}))
    return obs


def status():
    gl = signed_in()
    obs = {}
    other = new_user(gl, "status")
    token = other.impersonationtokens.create({"name": "status", "scopes": ["api"]}).token
    mine = signed_in(token)

    current = mine.user.status.get()
    obs["fresh"] = [current.emoji, current.message]
    current.emoji = "coffee"
    current.message = "Brewing :coffee:"
    current.save()
    obs["saved"] = [current.emoji, current.message, current.message_html]
    seen = gl.users.get(other.id).status.get()
    obs["seen"] = [seen.emoji, seen.message]
    current.emoji = "not_an_emoji_name"
    obs["bad_emoji"] = failure(current.save)
    mine.user.status.update(new_data={"emoji": "", "message": ""})
    obs["cleared"] = gl.users.get(other.id).status.get().emoji
    return obs


def group_hooks():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglghooks{RUN}", "path": f"pglghooks{RUN}"})
    obs["fresh"] = group.hooks.list(get_all=True)
    hook = group.hooks.create({"url": "https://hooks.example.com/a", "issues_events": True, "token": "s3cret"})
    obs["created"] = {"url": hook.url, "group_id": hook.group_id == group.id, "push": hook.push_events, "issues": hook.issues_events, "token": hasattr(hook, "token")}
    hook.url = "https://hooks.example.com/b"
    hook.note_events = True
    hook.save()
    got = group.hooks.get(hook.id)
    obs["saved"] = {"url": got.url, "note": got.note_events}
    obs["listed"] = [h.url for h in group.hooks.list(get_all=True)]
    hook.delete()
    obs["deleted"] = failure(lambda: group.hooks.get(hook.id))
    return obs


if __name__ == "__main__":
    main(badges, notifications, status, group_hooks)
