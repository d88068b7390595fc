"""Drives geoforge's group wikis (ee) with the real python-gitlab 3.12 client: group.wikis.

Usage: python_gitlab_group_wikis.py SECTION. Environment, helpers and how a section reports:
python_gitlab_common.py.
"""
from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def group_wikis():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglgroupwiki{RUN}", "path": f"pglgroupwiki{RUN}", "visibility": "private"})
    obs["fresh"] = [p.slug for p in group.wikis.list(get_all=True)]
    page = group.wikis.create({"title": "Getting started", "content": "# Hello\n"})
    obs["created"] = {"slug": page.slug, "title": page.title, "format": page.format, "content": page.content, "encoding": page.encoding}
    nested = group.wikis.create({"title": "docs/Deep page", "content": "= Deep\n", "format": "asciidoc"})
    obs["nested"] = nested.slug
    got = group.wikis.get("docs/Deep-page")
    obs["got"] = {"slug": got.slug, "format": got.format, "content": got.content}
    obs["listed"] = [p.slug for p in group.wikis.list(get_all=True)]
    obs["listed_content"] = [p.content for p in group.wikis.list(with_content=True, get_all=True)]
    got.content = "= Deeper\n"
    got.save()
    obs["saved"] = group.wikis.get(got.slug).content

    # A reporter reads the pages and may not write them; a stranger does not see the group.
    reporter = new_user(gl, "gwreporter")
    group.members.create({"user_id": reporter.id, "access_level": 20})
    token = reporter.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token
    as_reporter = client(token).groups.get(group.id, lazy=True)
    obs["reporter_reads"] = as_reporter.wikis.get(page.slug).content
    obs["reporter_writes"] = failure(lambda: as_reporter.wikis.create({"title": "nope", "content": "x"}))
    stranger = new_user(gl, "gwstranger")
    stranger_token = stranger.impersonationtokens.create({"name": "pgl", "scopes": ["api"]}).token
    obs["stranger_reads"] = failure(lambda: client(stranger_token).groups.get(group.id, lazy=True).wikis.list(get_all=True))

    page.delete()
    obs["deleted"] = failure(lambda: group.wikis.get(page.slug))
    group.wikis.delete(got.slug)
    obs["after_delete"] = [p.slug for p in group.wikis.list(get_all=True)]
    obs["duplicate"] = failure(lambda: [group.wikis.create({"title": "twice", "content": "a"}), group.wikis.create({"title": "twice", "content": "b"})])
    return obs


if __name__ == "__main__":
    main(group_wikis)
