"""Story templates: the Jinja2 sandbox, story packs and rendering of events into mails."""
