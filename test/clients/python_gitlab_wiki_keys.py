"""Drives geoforge's wiki pages, deploy keys, key lookups and personal access tokens with the real
python-gitlab 3.12 client.

Usage: python_gitlab_wiki_keys.py SECTION. Environment, helpers and how a section reports:
python_gitlab_common.py; the keys sections also read GEOFORGE_KEY1, GEOFORGE_KEY2 (OpenSSH public
keys made by the test) and GEOFORGE_KEY1_SHA256, GEOFORGE_KEY1_MD5 (the first key's fingerprints).
"""
import os

from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def wikis():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pglwiki{RUN}"})
    obs["fresh"] = [p.slug for p in project.wikis.list(get_all=True)]
    page = project.wikis.create({"title": "Getting started", "content": "# Hello\n"})
    obs["created"] = {"slug": page.slug, "title": page.title, "format": page.format, "content": page.content}
    nested = project.wikis.create({"title": "docs/Deep page", "content": "= Deep\n", "format": "asciidoc"})
    obs["nested"] = nested.slug
    got = project.wikis.get("docs/Deep page".replace(" ", "-"))
    obs["got"] = {"slug": got.slug, "format": got.format, "content": got.content}
    obs["listed"] = [p.slug for p in project.wikis.list(get_all=True)]
    obs["listed_content"] = [p.content for p in project.wikis.list(with_content=True, get_all=True)]
    got.content = "= Deeper\n"
    got.save()
    obs["saved"] = project.wikis.get(got.slug).content
    page.delete()
    obs["deleted"] = failure(lambda: project.wikis.get(page.slug))
    project.wikis.delete(got.slug)
    obs["after_delete"] = [p.slug for p in project.wikis.list(get_all=True)]
    obs["duplicate"] = failure(lambda: [project.wikis.create({"title": "twice", "content": "a"}), project.wikis.create({"title": "twice", "content": "b"})])
    return obs


def deploy_keys():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pgldeploy{RUN}"})
    other = gl.projects.create({"name": f"pgldeploy2{RUN}"})
    key = project.keys.create({"title": "ci", "key": os.environ["GEOFORGE_KEY1"], "can_push": True})
    obs["created"] = {"title": key.title, "can_push": key.can_push, "fingerprint_sha256": key.fingerprint_sha256}
    obs["listed"] = [[k.id == key.id, k.title, k.can_push] for k in project.keys.list(get_all=True)]
    got = project.keys.get(key.id)
    got.title = "renamed"
    got.can_push = False
    got.save()
    got = project.keys.get(key.id)
    obs["saved"] = {"title": got.title, "can_push": got.can_push}
    enabled = other.keys.enable(key.id)
    obs["enabled"] = enabled["id"] == key.id
    obs["other_listed"] = [k.title for k in other.keys.list(get_all=True)]
    second = other.keys.create({"title": "second", "key": os.environ["GEOFORGE_KEY2"]})
    obs["site_wide"] = sorted(k.title for k in gl.deploykeys.list(get_all=True) if k.id in (key.id, second.id))
    project.keys.delete(key.id)
    obs["after_delete"] = [k.title for k in project.keys.list(get_all=True)]
    obs["still_on_other"] = sorted(k.title for k in other.keys.list(get_all=True))
    obs["missing"] = failure(lambda: project.keys.get(key.id))
    obs["enable_missing"] = failure(lambda: project.keys.enable(999999))
    return obs


def keys():
    gl = signed_in()
    obs = {}
    user = new_user(gl, "keys")
    key = user.keys.create({"title": "laptop", "key": os.environ["GEOFORGE_KEY1"]})
    by_id = gl.keys.get(key.id)
    obs["by_id"] = {"title": by_id.title, "user": by_id.user["username"] == user.username}
    obs["by_sha256"] = gl.keys.get(fingerprint=os.environ["GEOFORGE_KEY1_SHA256"]).id == key.id
    obs["by_md5"] = gl.keys.get(fingerprint=os.environ["GEOFORGE_KEY1_MD5"]).id == key.id
    obs["missing"] = failure(lambda: gl.keys.get(fingerprint="SHA256:" + "A" * 43))
    return obs


def personal_access_tokens():
    gl = signed_in()
    obs = {}
    user = new_user(gl, "pat")
    made = user.personal_access_tokens.create({"name": "script", "scopes": ["api", "read_user"], "expires_at": "2999-12-31"})
    obs["created"] = {"name": made.name, "scopes": made.scopes, "token": made.token.startswith("glpat-"), "user_id": made.user_id == user.id}
    mine = client(made.token)
    mine.auth()
    obs["authenticated_as"] = mine.user.username == user.username
    obs["own_list"] = [t.name for t in mine.personal_access_tokens.list(get_all=True)]
    obs["admin_list"] = [t.name for t in gl.personal_access_tokens.list(user_id=user.id, get_all=True)]
    # 3.12's manager has no get(): the self endpoint through the client's own http_get.
    obs["self"] = {k: v for k, v in mine.http_get("/personal_access_tokens/self").items() if k in ("name", "active", "revoked")}
    obs["other_user"] = failure(lambda: mine.personal_access_tokens.list(user_id=1))
    gl.personal_access_tokens.delete(made.id)
    obs["revoked_use"] = failure(lambda: mine.auth())
    obs["after_revoke"] = [[t.name, t.active, t.revoked] for t in gl.personal_access_tokens.list(user_id=user.id, revoked=True, get_all=True)]
    return obs


if __name__ == "__main__":
    main(wikis, deploy_keys, keys, personal_access_tokens)
