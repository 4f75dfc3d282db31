"""Photoreal labelled images of a Bao board (Blender/Cycles), and their labels.

Modules, in pipeline order:

- :mod:`vision.synth.scene` - board geometry, pit layout, camera and projection (NumPy only)
- :mod:`vision.synth.params` - random render parameters and seed counts
- :mod:`vision.synth.hand` - hand/arm capsules and the pits they hide
- :mod:`vision.synth.blender` - scene building, rigid-body settling, Cycles render (needs bpy)
- :mod:`vision.synth.materials` - procedural materials (needs bpy)
- :mod:`vision.synth.post` - camera-like finishing and JPEG
- :mod:`vision.synth.labels` - seed -> pit assignment, label assembly and validation
- :mod:`vision.synth.generate` / :mod:`vision.synth.game` - single images and game sequences
- :mod:`vision.synth.overlay` / :mod:`vision.synth.catalog` - check labels by eye, contact sheet

``bpy`` is imported only inside the render functions, so ``import vision.synth``
and everything label-related works without Blender. Commands: ``bao render`` and
``bao render-game`` (webui/commands/render.py).
"""
