from tiergate.main import main

raise SystemExit(main())
