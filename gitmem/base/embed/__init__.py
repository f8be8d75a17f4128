"""The optional local embedding model (the ``[embed]`` extra: numpy, nothing else).

Only this package imports numpy, and nothing imports it unless
``git config gitmem.embed-model`` names a model: without it no module of
gitmem loads numpy.

- ``model``: finding a model (a folder or an installed distribution that ships
  one, in the sentence-transformers layout) and loading its weights and tokenizer;
- ``wordpiece``: BERT's tokenizer, read from the model's tokenizer.json;
- ``bert``: the forward pass of a BERT encoder in numpy, mean pooling, unit length;
- ``vectors``: vectors as float32 blobs and the cosine scan over them.
"""
