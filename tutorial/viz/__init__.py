"""Widgets and plots. Each widget separates a pure model (computed once) from a view
that only draws it; callbacks look things up, they never recompute."""
