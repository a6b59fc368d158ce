"""Pages for some access roles only."""

from __future__ import annotations

from functools import wraps

from flask import abort
from flask_login import current_user, login_required


def role_required(*roles: str):
    """Require a signed-in user with one of `roles` (403 otherwise)."""

    def decorator(view):
        @wraps(view)
        @login_required
        def wrapped(*args, **kwargs):
            if current_user.access_role not in roles:
                abort(403)
            return view(*args, **kwargs)

        return wrapped

    return decorator
