"""Drives geoforge's notes, discussions, award emoji and resource events APIs with the real
python-gitlab 3.12 client, through the managers it hangs off an issue: issue.notes,
issue.discussions (and discussion.notes), issue.awardemojis, note.awardemojis and
issue.resource{label,milestone,state}events.

Usage: python_gitlab_notes.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, client, failure, main, new_user, signed_in  # also makes every warning an error


def notes():
    root = signed_in()
    author = new_user(root, "nt")
    outsider = new_user(root, "nto")
    gl = client(author.impersonationtokens.create({"name": "notes", "scopes": ["api"]}).token)
    other = client(outsider.impersonationtokens.create({"name": "notes", "scopes": ["api"]}).token)
    gl.auth()
    other.auth()

    project = gl.projects.create({"name": f"pglnt{RUN}", "visibility": "public"})
    issue = project.issues.create({"title": "Talk", "labels": ["bug"]})
    obs = {"issue_id": issue.id, "issue_iid": issue.iid, "author_id": author.id}

    note = issue.notes.create({"body": "first"})
    note.body = "first, edited"
    note.save()
    issue.notes.create({"body": "second"})
    obs["notes"] = [(n.body, n.system, n.noteable_iid) for n in issue.notes.list(sort="asc", get_all=True)]
    obs["note_get"] = issue.notes.get(note.id).body
    foreign = other.projects.get(project.id, lazy=True).issues.get(issue.iid, lazy=True)
    obs["foreign_edit"] = failure(lambda: foreign.notes.update(note.id, {"body": "hijack"}))
    issue.notes.delete(note.id)
    obs["after_delete"] = [n.body for n in issue.notes.list(sort="asc", get_all=True) if not n.system]
    obs["missing"] = failure(lambda: issue.notes.get(999999))
    obs["user_notes_count"] = project.issues.get(issue.iid).user_notes_count

    thread = issue.discussions.create({"body": "thread"})
    reply = thread.notes.create({"body": "reply"})
    reply.body = "reply, edited"
    reply.save()
    fetched = issue.discussions.get(thread.id)
    obs["thread"] = {"individual_note": fetched.individual_note, "bodies": [n["body"] for n in fetched.attributes["notes"]], "id_length": len(thread.id)}
    obs["discussions"] = [(d.individual_note, [n["body"] for n in d.attributes["notes"]]) for d in issue.discussions.list(get_all=True)]

    award = issue.awardemojis.create({"name": "thumbsup"})
    obs["award"] = {"name": award.name, "awardable_type": award.awardable_type, "user": award.user["username"]}
    obs["upvotes"] = project.issues.get(issue.iid).upvotes
    obs["duplicate"] = failure(lambda: issue.awardemojis.create({"name": "thumbsup"}))
    obs["not_emoji"] = failure(lambda: issue.awardemojis.create({"name": "definitely_not_emoji"}))
    obs["others_award"] = failure(lambda: foreign.awardemojis.delete(award.id))
    issue.awardemojis.delete(award.id)
    obs["awards_after"] = len(issue.awardemojis.list(get_all=True))
    second = issue.notes.list(sort="asc", get_all=True)
    target = [n for n in second if not n.system][0]
    note_award = target.awardemojis.create({"name": "rocket"})
    obs["note_award"] = {"name": note_award.name, "awardable_type": note_award.awardable_type, "listed": [a.name for a in target.awardemojis.list(get_all=True)]}

    milestone = project.milestones.create({"title": "v1"})
    issue.milestone_id = milestone.id
    issue.labels = ["feature"]
    issue.save()
    issue.state_event = "close"
    issue.save()
    obs["label_events"] = [(e.action, e.label["name"], e.resource_type) for e in issue.resourcelabelevents.list(get_all=True)]
    obs["milestone_events"] = [(e.action, e.milestone["title"], e.state) for e in issue.resourcemilestoneevents.list(get_all=True)]
    obs["state_events"] = [e.state for e in issue.resourcestateevents.list(get_all=True)]
    obs["system_notes"] = [n.body for n in issue.notes.list(sort="asc", get_all=True) if n.system]
    return obs


if __name__ == "__main__":
    main(notes)
