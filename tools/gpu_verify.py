"""`python tools/gpu_verify.py` (the path the GPU procedure names): ice_teach.verify.gpu."""
from ice_teach.verify.gpu import main

raise SystemExit(main())
