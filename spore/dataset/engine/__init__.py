"""The pipeline engine: dataset nodes, samplers, iterators and parallel workers."""
