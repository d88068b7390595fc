"""Drives geoforge's repository browsing API with the real python-gitlab 3.12 client.

Usage: python_gitlab_repository.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import base64
import io
import tarfile
import zipfile

from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def seeded_project(gl):
    """A project with history on main and feature, by three authors, made through the commits API."""
    project = gl.projects.create({"name": f"pglrepo{RUN}", "default_branch": "main"})
    first = project.commits.create({
        "branch": "main",
        "commit_message": "first",
        "author_name": "Alice",
        "author_email": "alice@example.com",
        "actions": [
            {"action": "create", "file_path": "README.md", "content": "# hello\n"},
            {"action": "create", "file_path": "docs/guide.md", "content": "guide\n"},
        ],
    })
    project.branches.create({"branch": "feature", "ref": "main"})
    project.commits.create({
        "branch": "feature",
        "commit_message": "feature work",
        "author_name": "Carol",
        "author_email": "carol@example.com",
        "actions": [{"action": "create", "file_path": "feature.txt", "content": "feature\n"}],
    })
    second = project.commits.create({
        "branch": "main",
        "commit_message": "second",
        "author_name": "Bob",
        "author_email": "bob@example.com",
        "actions": [{"action": "update", "file_path": "README.md", "content": "# hello\nagain\n"}],
    })
    return project, first, second


def browse():
    gl = signed_in()
    obs = {}
    project, first, second = seeded_project(gl)

    tree = project.repository_tree()
    obs["tree"] = [[entry["type"], entry["path"]] for entry in tree]
    obs["tree_docs"] = [entry["path"] for entry in project.repository_tree(path="docs", ref="main")]
    obs["tree_recursive"] = [entry["path"] for entry in project.repository_tree(recursive=True, get_all=True)]
    obs["tree_feature"] = sorted(entry["path"] for entry in project.repository_tree(ref="feature"))
    obs["tree_unknown_ref"] = failure(lambda: project.repository_tree(ref="nope"))

    readme = next(entry for entry in tree if entry["name"] == "README.md")
    blob = project.repository_blob(readme["id"])
    obs["blob"] = {"sha": blob["sha"] == readme["id"], "size": blob["size"], "encoding": blob["encoding"], "content": base64.b64decode(blob["content"]).decode()}
    obs["raw_blob"] = project.repository_raw_blob(readme["id"]).decode()
    obs["missing_blob"] = failure(lambda: project.repository_blob("0" * 40))

    prefix = f"{project.path}-main-{second.id}"
    with tarfile.open(fileobj=io.BytesIO(project.repository_archive()), mode="r:gz") as archive:
        obs["archive_tar_gz"] = sorted(member.name for member in archive.getmembers() if member.isfile())
        obs["archive_readme"] = archive.extractfile(f"{prefix}/README.md").read().decode()
    with zipfile.ZipFile(io.BytesIO(project.repository_archive(sha="feature", format="zip"))) as archive:
        obs["archive_zip"] = sorted(name for name in archive.namelist() if not name.endswith("/"))
    with tarfile.open(fileobj=io.BytesIO(project.repository_archive(format="tar.bz2", path="docs")), mode="r:bz2") as archive:
        obs["archive_bz2_path"] = sorted(member.name for member in archive.getmembers() if member.isfile())
    obs["archive_unknown"] = failure(lambda: project.repository_archive(sha="nope"))
    obs["prefix"] = prefix
    obs["zip_prefix"] = f"{project.path}-feature-{project.branches.get('feature').commit['id']}"

    obs["contributors"] = [[c["name"], c["email"], c["commits"]] for c in project.repository_contributors()]
    obs["contributors_by_name"] = [c["name"] for c in project.repository_contributors(order_by="name", sort="desc")]

    obs["merge_base"] = project.repository_merge_base(["main", "feature"])["id"] == first.id
    obs["merge_base_one"] = failure(lambda: project.repository_merge_base(["main"]))
    obs["merge_base_unknown"] = failure(lambda: project.repository_merge_base(["main", "nope"]))
    obs["compare_straight"] = [d["new_path"] for d in project.repository_compare("feature", "main", straight=True)["diffs"]]
    obs["compare"] = [d["new_path"] for d in project.repository_compare("feature", "main")["diffs"]]
    obs["ids"] = {"first": first.id, "second": second.id}
    return obs


def files_and_commits():
    gl = signed_in()
    obs = {}
    project, first, second = seeded_project(gl)

    headers = project.files.head("docs/guide.md", ref="main")
    obs["head"] = {name: headers.get(name) for name in (
        "X-Gitlab-File-Name", "X-Gitlab-File-Path", "X-Gitlab-Size", "X-Gitlab-Encoding", "X-Gitlab-Ref",
        "X-Gitlab-Commit-Id", "X-Gitlab-Last-Commit-Id", "X-Gitlab-Content-Sha256",
    )}
    obs["head_blob_id"] = len(headers.get("X-Gitlab-Blob-Id", ""))
    obs["head_missing"] = failure(lambda: project.files.head("nope.md", ref="main"))
    blame = project.files.blame("README.md", "main")
    obs["blame"] = [[entry["commit"]["title"], entry["lines"]] for entry in blame]

    commit = project.commits.get(first.id)
    obs["refs"] = [[ref["type"], ref["name"]] for ref in commit.refs()]
    obs["refs_branch"] = [ref["name"] for ref in project.commits.get(second.id).refs("branch")]
    obs["signature"] = failure(lambda: commit.signature())

    made = commit.comments.create({"note": "Nice first commit"})
    line = project.commits.get(second.id).comments.create({"note": "a new line", "path": "README.md", "line": 2, "line_type": "new"})
    obs["comment"] = {"note": made.note, "author": made.author["username"], "path": made.path}
    obs["line_comment"] = {"path": line.path, "line": line.line, "line_type": line.line_type}
    obs["comments"] = [c.note for c in commit.comments.list(get_all=True)]
    obs["comment_blank"] = failure(lambda: commit.comments.create({"note": " "}))

    discussion = commit.discussions.create({"body": "A thread"})
    reply = discussion.notes.create({"body": "An answer"})
    obs["discussion"] = [n["body"] for n in commit.discussions.get(discussion.id).attributes["notes"]]
    note = discussion.notes.get(reply.id)
    note.body = "An edited answer"
    note.save()
    obs["edited"] = discussion.notes.get(reply.id).body
    obs["discussions"] = [[d.individual_note, [n["body"] for n in d.attributes["notes"]]] for d in commit.discussions.list(get_all=True)]
    discussion.notes.delete(reply.id)
    obs["after_delete"] = [n["body"] for n in commit.discussions.get(discussion.id).attributes["notes"]]
    obs["ids"] = {"first": first.id, "second": second.id}
    return obs


if __name__ == "__main__":
    main(browse, files_and_commits)
