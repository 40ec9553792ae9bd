"""The portal's addresses: the JSON API of ``portal.md`` and its pages."""

from django.urls import path

from grader.web.site import (
    account,
    api,
    failures,
    login,
    pages,
    views_instructor,
    views_record,
    views_roster,
    views_similar,
    views_student,
)

# a plain page for the pages' 404 and 500 (the API's are JSON: failures.ApiErrors)
handler404 = failures.page_not_found
handler500 = failures.server_error

urlpatterns = [
    path("healthz", api.healthz),
    path("api/tasks", api.tasks),
    path("api/tasks/<str:task_id>/regrade", api.regrade),
    path("api/submissions", api.submissions),
    path("api/submissions/<int:number>", api.submission),
    path("api/gradebook.csv", api.gradebook),
    path("api/gradescope.zip", api.gradescope),
    path("login/", login.SignIn.as_view(), name="login"),
    path("logout/", login.sign_out, name="logout"),
    path("password/", login.FirstPassword.as_view(), name="password_change"),
    path("account/", account.account, name="account"),
    path("", views_student.home, name="home"),
    path("tasks/<str:task_id>/", views_student.task, name="task"),
    path("submissions/<int:number>/", views_student.submission, name="submission"),
    path("submissions/<int:number>/file", views_student.submission_file, name="submission_file"),
    path("submissions/<int:number>/status", views_student.submission_status, name="submission_status"),
    path("submissions/<int:number>/choose", views_student.choose, name="choose"),
    path("submissions/<int:number>/report", pages.report, name="report"),
    path("submissions/<int:number>/comment", views_roster.comment, name="comment"),
    path("submissions/<int:number>/index.html", pages.report_index),
    path("teach/", views_instructor.teach, name="teach"),
    path("teach/class/", views_instructor.class_page, name="class"),
    path("teach/class/<str:username>/index.html", views_record.student, name="student"),
    path("teach/class/<str:username>/extension", views_record.extension, name="extension"),
    path("teach/class/<str:username>/adjustment", views_record.adjustment, name="adjustment"),
    path("teach/class/<str:username>/drop", views_roster.drop, name="drop"),
    path("teach/class/<str:username>/restore", views_roster.restore, name="restore"),
    path("teach/queue/", views_instructor.queue, name="queue"),
    path("teach/publish", views_instructor.publish, name="publish"),
    path("teach/similar/", views_similar.section, name="similar"),
    path("teach/similar/<int:first>/<int:second>/", views_similar.pair, name="similar_pair"),
    path("teach/tasks/<str:task_id>/regrade", views_instructor.regrade, name="regrade"),
    path("teach/tasks/<str:task_id>/limits", views_instructor.limits, name="limits"),
    path("teach/limits", views_instructor.limits_all, name="limits_all"),
    path("teach/marks", views_instructor.marks, name="marks"),
    path("teach/hidden", views_instructor.hidden, name="hidden"),
    path("teach/time-zone", views_instructor.time_zone, name="time_zone"),
    path("teach/waiting", views_instructor.waiting_bound, name="waiting_bound"),
    path("teach/gradebook.csv", views_instructor.gradebook, name="gradebook"),
    path("teach/gradescope.zip", views_instructor.gradescope, name="gradescope"),
]
