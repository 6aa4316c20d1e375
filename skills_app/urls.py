from django.urls import path

app_name = "skills"
urlpatterns: list = []
