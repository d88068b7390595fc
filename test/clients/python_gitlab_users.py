"""Drives geoforge's Users API with the real python-gitlab 3.12 client, the way its users do.

Usage: python_gitlab_users.py SECTION. Environment, helpers and how a section reports:
python_gitlab_common.py; the key sections also read GEOFORGE_SSH_KEYS / GEOFORGE_GPG_KEYS (JSON
arrays of public keys made by the vitest side, so the script needs nothing but python-gitlab).
"""
import json
import os

from gitlab import exceptions as exc

from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def core():
    gl = signed_in()
    version, revision = gl.version()
    return {
        "username": gl.user.username,
        "is_admin": gl.user.is_admin,
        "web_url": gl.user.web_url,
        "version": version,
        "revision": revision,
    }


def users():
    gl = signed_in()
    obs = {}

    # Create with a dict (JSON body) and with kwargs (python-gitlab puts them all in the query string).
    first = new_user(gl, "a", bio="first bio")
    name_b = f"pglb{RUN}"
    second = gl.users.create(
        email=f"{name_b}@example.com", username=name_b, name="Pgl b", password="password123", skip_confirmation=True
    )
    obs["created"] = {
        "dict": {"username": first.username, "bio": first.bio, "state": first.state, "has_is_admin": hasattr(first, "is_admin")},
        "kwargs": {"username": second.username, "email": second.email, "confirmed": second.confirmed_at is not None},
    }
    extra = [new_user(gl, f"p{i}") for i in range(4)]  # enough users for several pages of 2

    # Filters, each a single page on purpose (get_all=False keeps python-gitlab quiet about paging).
    obs["search"] = sorted(u.username for u in gl.users.list(search=f"pgla{RUN}", get_all=False))
    obs["by_username"] = [u.id for u in gl.users.list(username=name_b, get_all=False)]
    obs["by_username_expected"] = second.id
    active = gl.users.list(active=True, per_page=100, get_all=False)
    obs["active_has_first"] = first.id in [u.id for u in active]

    # Pagination: the iterator follows Link rel="next" page by page; get_all does the same eagerly.
    pages = gl.users.list(per_page=2, iterator=True)
    ids = [u.id for u in pages]
    everyone = gl.users.list(per_page=2, get_all=True)
    obs["pages"] = {
        "total": pages.total,
        "total_pages": pages.total_pages,
        "collected": len(ids),
        "distinct": len(set(ids)),
        "get_all_collected": len(everyone),
        "includes_new": all(u.id in ids for u in [first, second, *extra]),
    }
    head = gl.users.head()
    obs["head"] = {"x_total": head.get("X-Total"), "content_type": head.get("Content-Type")}

    # Get and update through save(): python-gitlab sends email/username/name plus the changes.
    user = gl.users.get(first.id)
    user.name = "Renamed Pgl"
    user.bio = "second bio"
    user.save()
    again = gl.users.get(first.id)
    obs["updated"] = {"name_after_save": user.name, "name": again.name, "bio": again.bio, "username": again.username}

    # Block and unblock: the server's boolean is returned and drives the local state.
    obs["block"] = {
        "first": user.block(),
        "state_after_first": user.state,
        "server_state": gl.users.get(user.id).state,
        "in_blocked_list": user.id in [u.id for u in gl.users.list(blocked=True, per_page=100, get_all=False)],
        "again": user.block(),
    }
    obs["unblock"] = {
        "first": user.unblock(),
        "state_after_first": user.state,
        "server_state": gl.users.get(user.id).state,
        "again": user.unblock(),
    }

    # Errors python-gitlab users catch: a taken username or email on create is a 409.
    obs["taken_username"] = failure(
        lambda: gl.users.create({"username": first.username, "email": f"other{RUN}@example.com", "name": "x", "password": "password123"})
    )
    obs["taken_email"] = failure(
        lambda: gl.users.create({"username": f"other{RUN}", "email": second.email, "name": "x", "password": "password123"})
    )
    obs["missing_user"] = failure(lambda: gl.users.get(999999))

    # Delete by manager and by object with hard_delete=True; both are gone afterwards.
    gl.users.delete(second.id)
    extra[0].delete(hard_delete=True)
    obs["deleted"] = {
        "by_manager": failure(lambda: gl.users.get(second.id)),
        "hard": failure(lambda: gl.users.get(extra[0].id)),
        "again": failure(lambda: gl.users.delete(second.id)),
    }
    return obs


def ssh_keys():
    gl = signed_in()
    public = json.loads(os.environ["GEOFORGE_SSH_KEYS"])
    user = new_user(gl, "k")
    obs = {}

    created = user.keys.create({"title": "laptop", "key": public[0]})
    obs["admin"] = {
        "created": {"id": created.id, "title": created.title, "key": created.key, "has_created_at": bool(created.created_at)},
        "listed": [k.id for k in user.keys.list(get_all=False)],
        "got": gl.users.get(user.id).keys.get(created.id).title,
        "duplicate": failure(lambda: user.keys.create({"title": "again", "key": public[0]})),
        "garbage": failure(lambda: user.keys.create({"title": "bad", "key": "ssh-ed25519 not-base64"})),
    }
    created.delete()
    obs["admin"]["after_delete"] = [k.id for k in user.keys.list(get_all=False)]
    obs["admin"]["get_deleted"] = failure(lambda: user.keys.get(created.id))

    # The current-user variant, as root.
    mine = gl.user.keys.create({"title": "root key", "key": public[1]})
    listed = [k.id for k in gl.user.keys.list(get_all=False)]
    got = gl.user.keys.get(mine.id).key
    mine.delete()
    obs["current"] = {
        "key": mine.key,
        "listed": mine.id in listed,
        "got": got,
        "after_delete": mine.id in [k.id for k in gl.user.keys.list(get_all=False)],
    }
    return obs


def gpg_keys():
    gl = signed_in()
    public = json.loads(os.environ["GEOFORGE_GPG_KEYS"])
    user = new_user(gl, "g")
    obs = {}

    # POST answers 201 with the created key as one object (GITLAB-NOTES decision 3): python-gitlab
    # builds a UserGPGKey from it, and would fail here on the array the SPEC's docs sample shows.
    try:
        created = user.gpgkeys.create({"key": public[0]})
        obs["create"] = {"error": None, "id": created.id, "key_matches": created.key.strip() == public[0].strip(), "has_created_at": bool(created.created_at)}
    except exc.GitlabParsingError as e:
        obs["create"] = {"error": type(e).__name__, "message": str(e.error_message)}
    listed = user.gpgkeys.list(get_all=False)
    obs["listed"] = len(listed)
    if listed:
        key_id = listed[0].id
        got = user.gpgkeys.get(key_id)
        obs["got"] = {"id": got.id, "key_matches": got.key.strip() == public[0].strip(), "has_created_at": bool(got.created_at)}
        obs["duplicate"] = failure(lambda: user.gpgkeys.create({"key": public[0]}))
        got.delete()
        obs["after_delete"] = len(user.gpgkeys.list(get_all=False))
        obs["get_deleted"] = failure(lambda: user.gpgkeys.get(key_id))
    obs["garbage"] = failure(lambda: user.gpgkeys.create({"key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\nnope\n-----END PGP PUBLIC KEY BLOCK-----"}))

    # Current user: list + create + delete.
    try:
        mine = gl.user.gpgkeys.create({"key": public[1]})
        obs["current_create"] = {"error": None, "id": mine.id, "key_matches": mine.key.strip() == public[1].strip()}
    except exc.GitlabParsingError as e:
        obs["current_create"] = {"error": type(e).__name__}
    mine_listed = gl.user.gpgkeys.list(get_all=False)
    obs["current_listed"] = len(mine_listed)
    obs["current_listed_ids"] = [key.id for key in mine_listed]
    for key in mine_listed:
        key.delete()
    obs["current_after_delete"] = len(gl.user.gpgkeys.list(get_all=False))
    return obs


def emails():
    gl = signed_in()
    user = new_user(gl, "e")
    obs = {}
    address = f"second{RUN}@example.com"
    created = user.emails.create({"email": address})
    listed = [e.email for e in user.emails.list(get_all=False)]
    obs["admin"] = {
        "created": created.email,
        "has_id": isinstance(created.id, int),
        "listed": listed,  # the primary address is not part of this list
        "got": user.emails.get(created.id).email,
        "taken_secondary": failure(lambda: user.emails.create({"email": address})),
        "taken_primary": failure(lambda: user.emails.create({"email": user.email})),
    }
    created.delete()
    obs["admin"]["after_delete"] = [e.email for e in user.emails.list(get_all=False)]

    mine_address = f"root{RUN}@example.com"
    mine = gl.user.emails.create({"email": mine_address})
    obs["current"] = {
        "created": mine.email,
        "listed": mine_address in [e.email for e in gl.user.emails.list(get_all=False)],
    }
    mine.delete()
    obs["current"]["after_delete"] = mine_address in [e.email for e in gl.user.emails.list(get_all=False)]
    obs["current"]["get_deleted"] = failure(lambda: gl.user.emails.get(mine.id))
    return obs


def impersonation():
    gl = signed_in()
    user = new_user(gl, "i")
    obs = {}
    token = user.impersonationtokens.create({"name": "pgl", "scopes": ["api"], "expires_at": "2099-01-01"})
    obs["created"] = {
        "has_token": isinstance(getattr(token, "token", None), str) and len(token.token) > 0,
        "scopes": token.scopes,
        "active": token.active,
        "revoked": token.revoked,
        "impersonation": token.impersonation,
        "expires_at": token.expires_at,
    }
    obs["active_list"] = [t.id for t in user.impersonationtokens.list(state="active", get_all=False)]
    got = user.impersonationtokens.get(token.id)
    obs["got"] = {"id": got.id, "name": got.name, "active": got.active}
    obs["token_id"] = token.id

    # The token authenticates as the user, with the user's (non-admin) view of /user.
    as_user = client(token.token)
    as_user.auth()
    obs["before_revoke"] = {"username": as_user.user.username, "is_admin": getattr(as_user.user, "is_admin", None)}

    token.delete()  # DELETE revokes; the record stays
    revoked = user.impersonationtokens.get(token.id)
    obs["after_revoke"] = {
        "revoked": revoked.revoked,
        "active": revoked.active,
        "in_active_list": token.id in [t.id for t in user.impersonationtokens.list(state="active", get_all=False)],
        "in_inactive_list": token.id in [t.id for t in user.impersonationtokens.list(state="inactive", get_all=False)],
        "in_all_list": token.id in [t.id for t in user.impersonationtokens.list(get_all=False)],
        "auth": failure(as_user.auth),
    }
    obs["missing"] = failure(lambda: user.impersonationtokens.get(999999))
    obs["bad_scope"] = failure(lambda: user.impersonationtokens.create({"name": "x", "scopes": ["sudo"]}))
    return obs


def sudo():
    gl = signed_in()
    user = new_user(gl, "s")
    obs = {}
    by_name = gl.http_get("/user", sudo=user.username)
    by_id = gl.http_get("/user", sudo=user.id)
    obs["user_by_username"] = {"username": by_name["username"], "is_admin": by_name.get("is_admin")}
    obs["user_by_id"] = by_id["username"]
    # A non-admin sees the basic user view in lists: no email.
    listed = gl.users.list(username=user.username, sudo=user.username, get_all=False)
    obs["list_as_user"] = {"count": len(listed), "has_email": hasattr(listed[0], "email") if listed else None}
    obs["create_as_user"] = failure(
        lambda: gl.users.create({"username": f"nope{RUN}", "email": f"nope{RUN}@example.com", "name": "n", "password": "password123"}, sudo=user.username)
    )
    obs["unknown_user"] = failure(lambda: gl.http_get("/user", sudo=f"ghost{RUN}"))
    # Sudo without being admin: the user's own impersonation token asking to be root.
    token = user.impersonationtokens.create({"name": "s", "scopes": ["api"]})
    obs["as_non_admin"] = failure(lambda: client(token.token).http_get("/user", sudo="root"))
    return obs


if __name__ == "__main__":
    main(core, users, ssh_keys, gpg_keys, emails, impersonation, sudo)
