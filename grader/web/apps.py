"""The portal as a Django app."""

from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "grader.web"
    label = "portal"
    verbose_name = "nim-grader portal"
