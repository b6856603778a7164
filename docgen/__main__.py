from docgen.docs import main

raise SystemExit(main())
