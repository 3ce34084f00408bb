"""From a resolved Query to a PlanModel: FK join trees (joins), rendering (builder) and the
planner that refuses rather than guesses (planner)."""
