"""Why an instruction conflicts and what removes it: lane-by-lane wavefronts, block ops, pictures, the shared
arrays of a kernel and the fixes stated in its author's terms."""
