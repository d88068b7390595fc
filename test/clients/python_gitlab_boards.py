"""Drives geoforge's issue boards (project and group boards, board lists) with the real python-gitlab 3.12 client.

Usage: python_gitlab_boards.py SECTION. Environment, helpers and how a section reports: python_gitlab_common.py.
"""
from python_gitlab_common import RUN, failure, main, signed_in  # also makes every warning an error


def lists_of(board):
    return [[lst.label["name"], lst.position] for lst in board.lists.list(get_all=True)]


def project_boards():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglboards{RUN}", "path": f"pglboards{RUN}"})
    project = gl.projects.create({"name": f"pglboards{RUN}", "namespace_id": group.id})
    obs["fresh"] = [b.id for b in project.boards.list(get_all=True)]

    board = project.boards.create({"name": "Development"})
    obs["created"] = {"name": board.name, "project": board.project["path_with_namespace"], "lists": board.lists.list(get_all=True) == []}
    obs["got"] = project.boards.get(board.id).name
    obs["listed"] = [b.name for b in project.boards.list(get_all=True)]

    labels = [project.labels.create({"name": name, "color": "#428bca"}) for name in ("todo", "doing")]
    group_label = group.labels.create({"name": "done", "color": "#5cb85c"})
    made = [board.lists.create({"label_id": label.id}) for label in (*labels, group_label)]
    obs["lists"] = lists_of(board)
    obs["unknown_label"] = failure(lambda: board.lists.create({"label_id": 999999}))
    obs["duplicate"] = failure(lambda: board.lists.create({"label_id": labels[0].id}))

    last = board.lists.get(made[2].id)
    last.position = 0
    last.save()
    obs["moved"] = lists_of(board)
    obs["got_list"] = {"label": board.lists.get(made[0].id).label["name"], "position": board.lists.get(made[0].id).position}

    board.lists.delete(made[1].id)
    obs["after_delete"] = lists_of(board)
    made[0].delete()
    obs["after_object_delete"] = lists_of(board)
    obs["missing_list"] = failure(lambda: board.lists.get(made[1].id))

    project.boards.delete(board.id)
    obs["deleted"] = failure(lambda: project.boards.get(board.id))
    return obs


def group_boards():
    gl = signed_in()
    obs = {}
    group = gl.groups.create({"name": f"pglgboards{RUN}", "path": f"pglgboards{RUN}"})
    obs["fresh"] = [b.id for b in group.boards.list(get_all=True)]
    board = group.boards.create({"name": "Team"})
    obs["created"] = {"name": board.name, "group": board.group["id"] == group.id, "project": board.project}
    labels = [group.labels.create({"name": name, "color": "#428bca"}) for name in ("next", "now")]
    made = [board.lists.create({"label_id": label.id}) for label in labels]
    obs["lists"] = lists_of(board)
    moved = board.lists.get(made[1].id)
    moved.position = 0
    moved.save()
    obs["moved"] = lists_of(board)
    board.lists.delete(made[0].id)
    obs["after_delete"] = lists_of(board)
    obs["listed"] = [b.name for b in group.boards.list(get_all=True)]
    board.delete()
    obs["deleted"] = failure(lambda: group.boards.get(board.id))
    return obs


if __name__ == "__main__":
    main(project_boards, group_boards)
