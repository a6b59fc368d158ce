"""Import every feature's models, so that the metadata is complete (Alembic, tests)."""

from tracker.audit.models import AccountEvent, AuditEvent
from tracker.badges.models import BadgeMapping, ImportedBadge
from tracker.careers.models import Apprenticeship, CertificationBonus, Evidence, SkillAssessment
from tracker.catalog.models.credentials import Course, Credential, Exam, LearningPath, PathCourse
from tracker.catalog.models.levels import Level
from tracker.catalog.models.planning import RoiLine, TrainingStrategy
from tracker.catalog.models.skills import JobRole, Speciality
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.models.version import CatalogVersion
from tracker.db import Base
from tracker.identity.models import Identity, SignInRequest
from tracker.issuer.models import IssuedCredential, IssuerKey
from tracker.people.models import (
    ApiToken,
    Engineer,
    JobRoleAssignment,
    LevelChange,
    RecoveryCode,
    Team,
)
from tracker.progress.models import Certification, ExamAttempt, ExamPlan, HourLog
from tracker.readiness.models import (
    LapseImpact,
    OrganisationSnapshot,
    ReadinessSnapshot,
    StoredReadiness,
)
from tracker.reminders.models import Notification, ReminderRun
from tracker.scim.models import ScimGroup, ScimToken, ScimUser
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint

__all__ = [
    "AccountEvent",
    "ApiToken",
    "Apprenticeship",
    "AuditEvent",
    "BadgeMapping",
    "Base",
    "CatalogVersion",
    "Certification",
    "CertificationBonus",
    "Course",
    "Credential",
    "Engineer",
    "Evidence",
    "Exam",
    "ExamAttempt",
    "ExamPlan",
    "HourLog",
    "Identity",
    "ImportedBadge",
    "IssuedCredential",
    "IssuerKey",
    "JobRole",
    "JobRoleAssignment",
    "LapseImpact",
    "LearningPath",
    "Level",
    "LevelChange",
    "Notification",
    "OrganisationSnapshot",
    "PathCourse",
    "ReadinessSnapshot",
    "RecoveryCode",
    "ReminderRun",
    "RoiLine",
    "ScimGroup",
    "ScimToken",
    "ScimUser",
    "SignInRequest",
    "SkillAssessment",
    "Speciality",
    "StoredReadiness",
    "Team",
    "TeamTemplate",
    "TemplateSlot",
    "TrainingStrategy",
    "WebhookDelivery",
    "WebhookEndpoint",
]
