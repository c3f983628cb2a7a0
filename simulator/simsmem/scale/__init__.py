"""Many launches at once: a grid's CTAs over Dask workers, and sweeps of inputs x configs x array changes."""
