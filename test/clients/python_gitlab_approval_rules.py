"""Drives geoforge's approval rules, approval state, reset_approvals and project and group access tokens
with the real python-gitlab 3.12 client, through its own managers (project.approvalrules,
mr.approval_rules, mr.approval_state, mr.reset_approvals, project.access_tokens, group.access_tokens).

Usage: python_gitlab_approval_rules.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import time

from python_gitlab_common import RUN, failure, main, new_user, signed_in  # also makes every warning an error


def wait_for(fn, timeout=20.0):
    deadline = time.time() + timeout
    while True:
        value = fn()
        if value or time.time() > deadline:
            return value
        time.sleep(0.1)


def rules():
    gl = signed_in()
    project = gl.projects.create({"name": f"pglrules{RUN}"})
    project.commits.create({"branch": "master", "commit_message": "init", "actions": [{"action": "create", "file_path": "README.md", "content": "one\n"}]})
    reviewer = new_user(gl, "reviewer")
    developer = new_user(gl, "ruledev")
    project.members.create({"user_id": reviewer.id, "access_level": 30})
    project.members.create({"user_id": developer.id, "access_level": 30})
    obs = {"reviewer": reviewer.id}

    rule = project.approvalrules.create({"name": "Reviewers", "approvals_required": 1, "user_ids": [reviewer.id]})
    # Reading a list attribute marks it changed in python-gitlab 3.x (in-place edits are tracked), and a save would send the
    # user objects back as `users` (GitLab's 400 `users is invalid`): read them from a listed copy.
    listed = project.approvalrules.list(get_all=True)[0]
    obs["created"] = {"name": listed.name, "rule_type": listed.rule_type, "users": [u["id"] for u in listed.users]}
    rule.approvals_required = 1
    rule.name = "Reviewer"
    rule.save()
    obs["listed"] = [(r.name, r.approvals_required) for r in project.approvalrules.list(get_all=True)]
    obs["invalid"] = failure(lambda: project.approvalrules.create({"name": "Reviewer", "approvals_required": 1, "user_ids": [reviewer.id]}))

    project.branches.create({"branch": "feature", "ref": "master"})
    project.commits.create({"branch": "feature", "commit_message": "feature", "actions": [{"action": "create", "file_path": "f.txt", "content": "x\n"}]})
    mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "master", "title": "Feature"}, sudo=developer.id)
    state = mr.approval_state.get()
    obs["state"] = {"overwritten": state.approval_rules_overwritten, "rules": [(r["name"], r["approved"]) for r in state.rules]}

    own = mr.approval_rules.create({"name": "Own", "approvals_required": 1, "approval_project_rule_id": rule.id})
    got = mr.approval_rules.get(own.id)
    obs["own"] = {"name": got.name, "source": got.source_rule, "users": [u["id"] for u in got.users]}
    own.approvals_required = 1
    own.save()
    obs["own_listed"] = [(r.name, r.approvals_required) for r in mr.approval_rules.list()]
    obs["own_got"] = mr.approval_rules.get(own.id).name
    obs["overwritten"] = mr.approval_state.get().approval_rules_overwritten

    mr = project.mergerequests.get(mr.iid)
    obs["blocked"] = failure(lambda: mr.merge())
    mr.approve(sudo=reviewer.id)
    obs["approved"] = [(r["name"], r["approved"]) for r in mr.approval_state.get().rules]
    # Without its own rule the merge request follows the project's again, which the same approval meets.
    mr.approval_rules.delete(own.id)
    wait_for(lambda: project.mergerequests.get(mr.iid).merge_status != "unchecked")
    obs["merged"] = project.mergerequests.get(mr.iid).merge()["state"]
    rule.delete()
    obs["after"] = [r.name for r in project.approvalrules.list(get_all=True)]
    return obs


def tokens():
    gl = signed_in()
    group = gl.groups.create({"name": f"pgltokens{RUN}", "path": f"pgltokens{RUN}"})
    project = gl.projects.create({"name": f"pgltokens{RUN}", "namespace_id": group.id})
    project.commits.create({"branch": "master", "commit_message": "init", "actions": [{"action": "create", "file_path": "README.md", "content": "one\n"}]})
    obs = {}
    token = project.access_tokens.create({"name": "bot", "scopes": ["api"], "access_level": 30})
    obs["created"] = {"name": token.name, "scopes": token.scopes, "access_level": token.access_level, "has_token": token.token.startswith("glpat-")}
    obs["listed"] = [(t.name, t.access_level, t.active) for t in project.access_tokens.list()]
    bot = signed_in(token.token)
    obs["bot"] = {"bot": bot.user.bot, "username": bot.user.username}

    reviewer = new_user(gl, "tokrev")
    project.members.create({"user_id": reviewer.id, "access_level": 30})
    project.branches.create({"branch": "reset", "ref": "master"})
    project.commits.create({"branch": "reset", "commit_message": "reset", "actions": [{"action": "create", "file_path": "r.txt", "content": "x\n"}]})
    mr = project.mergerequests.create({"source_branch": "reset", "target_branch": "master", "title": "Reset"})
    mr.approve(sudo=reviewer.id)
    obs["not_bot"] = failure(lambda: mr.reset_approvals())
    bot_mr = bot.projects.get(project.id, lazy=True).mergerequests.get(mr.iid)
    obs["reset"] = bot_mr.reset_approvals()
    obs["approved_by"] = project.mergerequests.get(mr.iid).approvals.get().approved_by

    group_token = group.access_tokens.create({"name": "group bot", "scopes": ["read_api"], "access_level": 20})
    obs["group_listed"] = [(t.name, t.access_level) for t in group.access_tokens.list()]
    obs["bad_scope"] = failure(lambda: group.access_tokens.create({"name": "x", "scopes": ["everything"]}))
    project.access_tokens.delete(token.id)
    group_token.delete()
    obs["after"] = [t.name for t in project.access_tokens.list()] + [t.name for t in group.access_tokens.list()]
    obs["revoked"] = failure(lambda: signed_in(token.token))
    return obs


if __name__ == "__main__":
    main(rules, tokens)
