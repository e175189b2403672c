"""What the course's notebooks use beside the checks (``alphazero_lib.exercises``): the play board
(``play_board``), the search explorer (``explorer``) and the keeper of the learner's passing code (``mine``:
``my_alphazero/``, which ``alphazero_lib.capstone`` assembles in notebook 10)."""
