"""Drives geoforge's snippets with the real python-gitlab 3.12 client: gl.snippets and project.snippets
(with their notes, discussions, award emoji and user agent detail).

Usage: python_gitlab_snippets.py SECTION. Environment, helpers and how a section reports:
python_gitlab_common.py.
"""
from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def personal():
    gl = signed_in()
    obs = {}
    owner = new_user(gl, "snip")
    token = owner.personal_access_tokens.create({"name": "t", "scopes": ["api"]}).token
    mine = signed_in(token)
    snippet = mine.snippets.create({"title": "Hello", "file_name": "hello.py", "content": "print('hi')\n", "visibility": "public"})
    obs["created"] = {"title": snippet.title, "file_name": snippet.file_name, "visibility": snippet.visibility, "files": [f["path"] for f in snippet.files]}
    obs["content"] = snippet.content().decode()
    got = mine.snippets.get(snippet.id)
    obs["got"] = {"title": got.title, "author": got.author["username"] == owner.username, "project_id": got.project_id}
    got.title = "Hello again"
    got.content = "print('again')\n"
    got.save()
    obs["saved"] = {"title": mine.snippets.get(snippet.id).title, "content": mine.snippets.get(snippet.id).content().decode()}
    obs["own_list"] = [s.title for s in mine.snippets.list(get_all=True)]
    obs["public_list"] = snippet.id in [s.id for s in gl.snippets.public(get_all=True)]
    obs["user_agent_detail"] = sorted(gl.snippets.get(snippet.id).user_agent_detail().keys())
    obs["user_agent_detail_denied"] = failure(lambda: got.user_agent_detail())
    obs["anonymous_get"] = client(None).snippets.get(snippet.id).title
    # python-gitlab 3.12 checks file_name itself before create(): the raw POST shows the server's answer.
    obs["missing_file_name"] = failure(lambda: mine.http_post("/snippets", post_data={"title": "x", "content": "y"}))
    got.delete()
    obs["deleted"] = failure(lambda: mine.snippets.get(snippet.id))
    return obs


def project():
    gl = signed_in()
    obs = {}
    project = gl.projects.create({"name": f"pglsnip{RUN}", "visibility": "private"})
    snippet = project.snippets.create({"title": "Proj", "file_name": "a.md", "content": "# a\n", "visibility": "private", "description": "d"})
    obs["created"] = {"title": snippet.title, "project_id": snippet.project_id == project.id, "description": snippet.description, "file_name": snippet.file_name}
    obs["content"] = snippet.content().decode()
    obs["listed"] = [s.title for s in project.snippets.list(get_all=True)]
    got = project.snippets.get(snippet.id)
    got.file_name = "b.md"
    got.save()
    obs["renamed"] = project.snippets.get(snippet.id).file_name
    note = got.notes.create({"body": "a note"})
    obs["notes"] = [n.body for n in got.notes.list(get_all=True)]
    obs["note_type"] = note.noteable_type
    discussion = got.discussions.create({"body": "a thread"})
    discussion.notes.create({"body": "a reply"})
    obs["discussions"] = [[n["body"] for n in d.attributes["notes"]] for d in got.discussions.list(get_all=True)]
    award = got.awardemojis.create({"name": "tada"})
    obs["awards"] = [a.name for a in got.awardemojis.list(get_all=True)]
    obs["award_type"] = award.awardable_type
    obs["user_agent_detail"] = sorted(got.user_agent_detail().keys())
    stranger = new_user(gl, "snipx")
    token = stranger.personal_access_tokens.create({"name": "t", "scopes": ["api"]}).token
    obs["stranger"] = failure(lambda: signed_in(token).projects.get(project.id, lazy=True).snippets.get(snippet.id))
    got.delete()
    obs["after_delete"] = [s.title for s in project.snippets.list(get_all=True)]
    return obs


main(personal, project)
