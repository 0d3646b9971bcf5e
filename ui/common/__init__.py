"""What every page of the app shares: the session's state and words, the one way to show
errors and to run heavy work, progress bars, layout and charts, the shelf of releases and
its results, the class table, the lattice chart, and the scaffolding of a page on a table
opened in an engine. The page packages of :mod:`ui` build on these and never on each other.
"""
