"""What a student or an instructor reads: the HTML pages (Jinja2, autoescaped, self-contained), the
JSON results, the terminal table, and the class overview's charts.
"""
