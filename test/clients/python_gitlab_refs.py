"""Drives geoforge's branches, tags, protected branches and tags, transfers, languages and
housekeeping with the real python-gitlab 3.12 client.

Usage: python_gitlab_refs.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
import warnings

from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def seeded_project(gl, tag):
    project = gl.projects.create({"name": f"pgl{tag}{RUN}", "initialize_with_readme": True})
    project.files.create({"file_path": "app.py", "branch": "master", "content": "print('hi')\n" * 10, "commit_message": "code"})
    return project


def branches_tags():
    gl = signed_in()
    obs = {}
    project = seeded_project(gl, "branches")
    made = project.branches.create({"branch": "feature/ünï.1", "ref": "master"})
    obs["created"] = {"name": made.name, "protected": made.protected, "merged": made.merged}
    obs["got"] = project.branches.get("feature/ünï.1").name
    obs["listed"] = sorted(b.name for b in project.branches.list(get_all=True))
    obs["master"] = {k: getattr(project.branches.get("master"), k) for k in ("protected", "developers_can_push", "developers_can_merge", "default")}
    project.branches.delete("feature/ünï.1")
    obs["deleted"] = failure(lambda: project.branches.get("feature/ünï.1"))

    light = project.tags.create({"tag_name": "v1.0", "ref": "master"})
    annotated = project.tags.create({"tag_name": "v2.0", "ref": "master", "message": "second"})
    obs["tags"] = [[t.name, t.message, t.commit["id"] == light.target] for t in project.tags.list(order_by="name", sort="asc", get_all=True)]
    obs["annotated_target_is_tag"] = annotated.target != light.target
    obs["duplicate"] = failure(lambda: project.tags.create({"tag_name": "v1.0", "ref": "master"}))
    project.tags.delete("v1.0")
    obs["after_delete"] = [t.name for t in project.tags.list(get_all=True)]
    obs["missing"] = failure(lambda: project.tags.get("v1.0"))
    return obs


def protected():
    gl = signed_in()
    obs = {}
    project = seeded_project(gl, "protected")
    obs["default_row"] = [[p.name, p.push_access_levels[0]["access_level"]] for p in project.protectedbranches.list(get_all=True)]
    pb = project.protectedbranches.create({"name": "release-*", "push_access_level": 30, "merge_access_level": 40})
    obs["created"] = {"name": pb.name, "push": pb.push_access_levels[0]["access_level"], "merge": pb.merge_access_levels[0]["access_level"]}
    obs["got"] = project.protectedbranches.get("release-*").name
    obs["duplicate"] = failure(lambda: project.protectedbranches.create({"name": "release-*"}))
    project.branches.create({"branch": "release-1", "ref": "master"})
    branch = project.branches.get("release-1")
    obs["branch"] = {"protected": branch.protected, "developers_can_push": branch.developers_can_push}
    pb.delete()
    obs["after_delete"] = [p.name for p in project.protectedbranches.list(get_all=True)]
    obs["unprotected_branch"] = project.branches.get("release-1").protected

    pt = project.protectedtags.create({"name": "v*", "create_access_level": 40})
    obs["tag_created"] = {"name": pt.name, "create": pt.create_access_levels[0]["access_level"]}
    obs["tag_listed"] = [p.name for p in project.protectedtags.list(get_all=True)]
    obs["tag_got"] = project.protectedtags.get("v*").name
    project.protectedtags.delete("v*")
    obs["tag_missing"] = failure(lambda: project.protectedtags.get("v*"))
    return obs


def moves():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglmoves{RUN}", "path": f"pglmoves{RUN}"})
    parent = gl.groups.create({"name": f"pglparent{RUN}", "path": f"pglparent{RUN}"})
    project = seeded_project(gl, "moves")
    project.transfer(group.id)
    obs["transferred"] = gl.projects.get(project.id).path_with_namespace
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        project.transfer_project("root")
    obs["transfer_project"] = {"path": gl.projects.get(project.id).path_with_namespace, "deprecated": any(issubclass(w.category, DeprecationWarning) for w in caught)}
    obs["same_namespace"] = failure(lambda: project.transfer("root"))

    group.transfer(parent.id)
    obs["group_moved"] = gl.groups.get(group.id).full_path
    group.transfer()
    obs["group_root"] = gl.groups.get(group.id).full_path
    obs["group_again"] = failure(lambda: group.transfer())

    obs["languages"] = project.languages()
    project.housekeeping()
    obs["housekept"] = True
    return obs


if __name__ == "__main__":
    main(branches_tags, protected, moves)
