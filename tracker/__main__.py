"""The `tracker` command line (also `python -m tracker`)."""

from __future__ import annotations

from flask.cli import FlaskGroup

from tracker import create_app

main = FlaskGroup(
    name="tracker",
    create_app=create_app,
    add_default_commands=False,
    add_version_option=False,
    load_dotenv=False,
    help="Track GPU-infrastructure engineers, their certifications and team readiness.",
)

if __name__ == "__main__":
    main()
