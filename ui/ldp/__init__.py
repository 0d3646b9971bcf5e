"""The LDP auditor page: one module per tab — a mechanism audited (:mod:`.mechanism`),
logged samples audited (:mod:`.samples`), the ε sweep, the planner and reconstruction
(:mod:`.tools`) — their recorded runs (:mod:`.runs`) and views (:mod:`.view`)."""
