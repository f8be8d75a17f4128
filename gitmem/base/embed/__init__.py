"""The optional local embedding model (the ``[embed]`` extra: numpy and tokenizers).

Only this package imports numpy and tokenizers, and nothing imports it unless
``git config gitmem.embed-model`` names a model: without it no module of
gitmem loads either library.

- ``model``: finding a model (a folder or an installed distribution that ships
  one, in the sentence-transformers layout) and loading its weights and tokenizer;
- ``bert``: the forward pass of a BERT encoder in numpy, mean pooling, unit length;
- ``vectors``: vectors as float32 blobs and the cosine scan over them.
"""
