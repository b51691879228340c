"""soan: write board-game drafts as specs; parse, play, compare and prove things about them."""
