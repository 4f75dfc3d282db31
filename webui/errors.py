"""JSON errors for the API: ``{"error": {"status": 400, "name": ..., "message": ...}}``."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES


class ApiError(Exception):
    """An error answered as JSON with ``status``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def json_object(required: bool = True) -> dict[str, Any]:
    """The request body's JSON object. With ``required`` False, a request with no body is
    ``{}``; any body that is no JSON object (not JSON, a list, a number...) is an
    :class:`ApiError` (400)."""
    if not required and not request.get_data():
        return {}
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # (``[[[[...`` thousands deep: the parser gives up, not silently)
        raise ApiError("the request body's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ApiError("expected a JSON object in the request body (Content-Type: application/json)")
    return data


def json_error(status: int, name: str, message: str) -> tuple[Response, int]:
    return jsonify({"error": {"status": status, "name": name, "message": message}}), status


def register(app: Flask) -> None:
    """Answer API errors (and bad engine/vision input) as JSON with a status code."""

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        return json_error(exc.status, HTTP_STATUS_CODES.get(exc.status, "Error"), exc.message)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response | tuple[Response, int] | HTTPException:
        if not request.path.startswith("/api/"):
            return exc
        status = exc.code or 500
        message = exc.description or exc.name
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            message = f"request too large: the limit is {limit} bytes"
        return json_error(status, exc.name, message)
