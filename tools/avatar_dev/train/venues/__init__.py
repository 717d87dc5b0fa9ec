"""The synthetic venues the training examples are drawn from (tools/avatar_dev/train/corpus.py, styled.py).

By concern:
- words.py: the templated venues' word lists (kinds, names, places, floors, amenities, cities ...);
- values.py: `Item` (one fact in both languages, with its questions and replies), `DrawnVenue` (what
  the fact writers use of a venue) and how a templated venue writes its values (times, prices, a
  week of opening hours, made-up names);
- venue.py: `Venue`, a random templated venue: its kind, name and styles, and the fact writers in order;
- hours_facts.py, price_facts.py, service_facts.py: its opening hours; prices; amenities, free-form
  services and contact;
- kind_facts.py: the facts only one kind of venue has (exhibitions, departures, rooms, loans ...);
- styled_words.py, subjects.py: what operators write about (kinds, places, rules, fillers; subjects);
- styled_venue.py: `StyledVenue`, a venue whose facts are clauses in one operator's style.
"""
