"""The Data & roles page: an upload's facts, the role editor and column profile, the
hierarchy editor, the schema file, and a table opened in an engine (open, profile,
roles, hierarchies)."""
