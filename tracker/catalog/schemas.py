"""The catalog's JSON shapes: references to courses, credentials, exams and specialities."""

from __future__ import annotations

from tracker.catalog.models import Course, Credential, Exam, Speciality
from tracker.schemas import Answer


class CourseRef(Answer):
    """A course, as records name it."""

    id: int
    code: str
    title: str

    @classmethod
    def of(cls, course: Course) -> CourseRef:
        return cls(id=course.id, code=course.code, title=course.title)


class CredentialRef(Answer):
    """A credential (NVIDIA's or another issuer's), as certifications name it."""

    id: int
    code: str
    name: str
    issuer: str
    kind: str
    origin: str

    @classmethod
    def of(cls, credential: Credential) -> CredentialRef:
        return cls(
            id=credential.id,
            code=credential.code,
            name=credential.name,
            issuer=credential.issuer,
            kind=credential.kind,
            origin=credential.origin,
        )


class ExamRef(Answer):
    """An exam, as attempts name it."""

    id: int
    code: str
    name: str

    @classmethod
    def of(cls, exam: Exam) -> ExamRef:
        return cls(id=exam.id, code=exam.code, name=exam.name)


class SpecialityRef(Answer):
    """A speciality, as skill assessments name it."""

    code: str
    name: str
    emerging: bool

    @classmethod
    def of(cls, speciality: Speciality) -> SpecialityRef:
        return cls(code=speciality.code, name=speciality.name, emerging=speciality.emerging)
