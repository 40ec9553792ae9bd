"""The portal's addresses: the JSON API of ``portal.md`` and its pages."""

from django.urls import path

from grader.web import api, pages

urlpatterns = [
    path("healthz", api.healthz),
    path("api/tasks", api.tasks),
    path("api/tasks/<str:task_id>/regrade", api.regrade),
    path("api/submissions", api.submissions),
    path("api/submissions/<int:number>", api.submission),
    path("api/gradebook.csv", api.gradebook),
    path("submissions/<int:number>/report", pages.report),
]
