"""The portal as a Django app."""

from django.apps import AppConfig


class PortalConfig(AppConfig):
    name = "grader.web"
    label = "portal"
    verbose_name = "nim-grader portal"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from grader.web.site.login import mark_signed_in

        user_logged_in.connect(mark_signed_in, dispatch_uid="grader.web.signed_in_at")
