"""What is specific to the Nim lab: the rules of Nim, the ``optimal_move`` checker and the ``nim_game``
interactor, added to a course's checkers by ``lab_checkers``.
"""
