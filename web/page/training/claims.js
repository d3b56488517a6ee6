// training/claims.js: every range the page and README state about training, as data.
// Measured over seeds 0–29 with TRAINING_DEFAULTS on the default corpus (web/corpus.js) by
// `node tools/measure-training.mjs --write`, which wrote this file: do not edit it by hand.
// tests/training-claims.test.js measures again and fails when a stated range no longer holds.
//
//   ranges.<id>: { note, start?, middle?, end?, … }, each a { min, median, max } over the seeds
//                (min rounded down, max up, median to 2 decimals); checkpoints: the steps measured
//   counts.<id>: { note, start?, middle?, end? }, each { count, of }: on how many seeds it held
//   counting:    the same measures with no training at all (raw next-word count vectors; ppmi: PPMI-SVD)

/** The measured claims (frozen). */
export const TRAINING_CLAIMS = deepFreeze({
  "seeds": {
    "from": 0,
    "to": 29,
    "count": 30
  },
  "defaults": {
    "batchSize": 1,
    "lr": 0.3,
    "steps": 1500,
    "dim": 16,
    "optimizer": "sgd"
  },
  "checkpoints": {
    "start": 0,
    "middle": 500,
    "end": 1500
  },
  "ranges": {
    "loss": {
      "note": "mean next-word loss over the default corpus (a uniform guess is ln V)",
      "start": {
        "min": 4.29,
        "median": 4.34,
        "max": 4.4
      },
      "end": {
        "min": 0.96,
        "median": 1,
        "max": 1.04
      }
    },
    "catDog": {
      "note": "cos(猫, 狗): cosine of the two embedding rows",
      "start": {
        "min": -0.49,
        "median": 0.05,
        "max": 0.58
      },
      "middle": {
        "min": 0.67,
        "median": 0.86,
        "max": 0.94
      },
      "end": {
        "min": 0.58,
        "median": 0.75,
        "max": 0.91
      }
    },
    "catCar": {
      "note": "cos(猫, 汽车)",
      "start": {
        "min": -0.37,
        "median": 0.06,
        "max": 0.7
      },
      "middle": {
        "min": -0.24,
        "median": 0.11,
        "max": 0.49
      },
      "end": {
        "min": -0.39,
        "median": -0.13,
        "max": 0.2
      }
    },
    "groupGap": {
      "note": "mean cosine between two animals minus mean cosine between an animal and a vehicle",
      "start": {
        "min": -0.2,
        "median": 0.02,
        "max": 0.21
      },
      "middle": {
        "min": 0.49,
        "median": 0.81,
        "max": 1.12
      },
      "end": {
        "min": 0.55,
        "median": 0.72,
        "max": 1.06
      }
    },
    "pApple": {
      "note": "p(果 | 我 爱 吃 苹): the model's probability of 果 after 我 爱 吃 苹",
      "start": {
        "min": 0.01,
        "median": 0.01,
        "max": 0.02
      },
      "middle": {
        "min": 0,
        "median": 0.06,
        "max": 0.32
      },
      "end": {
        "min": 0.86,
        "median": 0.96,
        "max": 1
      }
    },
    "attentionSpread": {
      "note": "attention on 我 爱 吃 苹 果: mean entropy of rows 1–5 over its uniform maximum (1 = uniform, 0 = one word)",
      "start": {
        "min": 0.96,
        "median": 0.99,
        "max": 1
      },
      "end": {
        "min": 0.36,
        "median": 0.5,
        "max": 0.57
      }
    },
    "analogyRank": {
      "note": "rank of 女王 among the words nearest 国王 − 男人 + 女人 (1 = first)",
      "end": {
        "min": 1,
        "median": 1,
        "max": 1
      }
    },
    "carToAnimals": {
      "note": "mean cos(汽车, animal) after the schedule, on the default corpus and on the car-with-animals preset",
      "end": {
        "min": -0.29,
        "median": -0.09,
        "max": 0.15
      },
      "carPreset": {
        "min": 0.03,
        "median": 0.17,
        "max": 0.39
      }
    },
    "carPresetCatCar": {
      "note": "cos(猫, 汽车) after the schedule on the car-with-animals preset",
      "end": {
        "min": -0.04,
        "median": 0.18,
        "max": 0.46
      }
    }
  },
  "counts": {
    "catNearerDog": {
      "note": "seeds where cos(猫, 狗) > cos(猫, 汽车)",
      "start": {
        "count": 12,
        "of": 30
      },
      "middle": {
        "count": 30,
        "of": 30
      },
      "end": {
        "count": 30,
        "of": 30
      }
    },
    "groupGapPositive": {
      "note": "seeds where the animals are closer to each other than to the vehicles on average (groupGap > 0)",
      "start": {
        "count": 17,
        "of": 30
      },
      "middle": {
        "count": 30,
        "of": 30
      },
      "end": {
        "count": 30,
        "of": 30
      }
    },
    "nearestIsAnimal": {
      "note": "seeds where every animal's nearest word among the animals and vehicles is an animal",
      "start": {
        "count": 3,
        "of": 30
      },
      "middle": {
        "count": 30,
        "of": 30
      },
      "end": {
        "count": 30,
        "of": 30
      }
    },
    "animalsApart": {
      "note": "seeds where every animal is closer to every other animal than to any vehicle (strict)",
      "start": {
        "count": 0,
        "of": 30
      },
      "middle": {
        "count": 27,
        "of": 30
      },
      "end": {
        "count": 14,
        "of": 30
      }
    },
    "analogyQueen": {
      "note": "seeds where 国王 − 男人 + 女人 gives 女王 first",
      "end": {
        "count": 30,
        "of": 30
      }
    },
    "kingNearestQueen": {
      "note": "baseline the analogy must beat: seeds where 女王 is 国王's own nearest word",
      "end": {
        "count": 10,
        "of": 30
      }
    },
    "analogyBeyondNeighbour": {
      "note": "seeds where the analogy gives 女王 although 国王's nearest word is another",
      "end": {
        "count": 20,
        "of": 30
      }
    },
    "controlQueen": {
      "note": "nonsense control: seeds where 国王 − 猫 + 狗 gives 女王 first",
      "end": {
        "count": 10,
        "of": 30
      }
    },
    "sumQueen": {
      "note": "seeds where 国王 + 女人 alone (the analogy without − 男人) gives 女王 first",
      "end": {
        "count": 27,
        "of": 30
      }
    },
    "catDogBelowCounting": {
      "note": "seeds where cos(猫, 狗) ends below both counting baselines (next-word counts and PPMI-SVD)",
      "end": {
        "count": 29,
        "of": 30
      }
    },
    "catCarBelowCounting": {
      "note": "seeds where cos(猫, 汽车) ends below both counting baselines",
      "end": {
        "count": 30,
        "of": 30
      }
    },
    "groupGapAboveCounting": {
      "note": "seeds where the animals–vehicles gap (groupGap) ends above both counting baselines",
      "end": {
        "count": 7,
        "of": 30
      }
    },
    "carMoved": {
      "note": "seeds where 汽车 ends closer to the animals (mean cosine) with the car-with-animals preset than with the default corpus",
      "count": 30,
      "of": 30
    }
  },
  "counting": {
    "note": "no training: each word's raw next-word count vector over the vocabulary (<s> = the sentence ends), with the same measures",
    "default": {
      "catDog": 0.884,
      "catCar": 0.267,
      "groupGap": 0.582,
      "nearestIsAnimal": true,
      "animalsApart": true,
      "analogy": [
        {
          "word": "女王",
          "score": 0.676
        },
        {
          "word": "一只",
          "score": 0
        },
        {
          "word": "猫",
          "score": 0
        }
      ],
      "sumTop": "女王",
      "control": [
        {
          "word": "女王",
          "score": 0.338
        },
        {
          "word": "男人",
          "score": 0.338
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "kingNeighbours": [
        {
          "word": "女王",
          "score": 0.4
        },
        {
          "word": "男人",
          "score": 0.4
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "pApple": 1,
      "carToAnimals": 0.365
    },
    "carPreset": {
      "catDog": 0.884,
      "catCar": 0.49,
      "groupGap": 0.517,
      "nearestIsAnimal": true,
      "animalsApart": false,
      "analogy": [
        {
          "word": "女王",
          "score": 0.676
        },
        {
          "word": "一只",
          "score": 0
        },
        {
          "word": "猫",
          "score": 0
        }
      ],
      "sumTop": "女王",
      "control": [
        {
          "word": "女王",
          "score": 0.338
        },
        {
          "word": "男人",
          "score": 0.338
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "kingNeighbours": [
        {
          "word": "女王",
          "score": 0.4
        },
        {
          "word": "男人",
          "score": 0.4
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "pApple": 1,
      "carToAnimals": 0.56
    },
    "twins": {
      "catDog": 1,
      "catCar": 0.298,
      "groupGap": 0.499,
      "nearestIsAnimal": true,
      "animalsApart": false,
      "analogy": [
        {
          "word": "女王",
          "score": 1
        },
        {
          "word": "一只",
          "score": 0
        },
        {
          "word": "猫",
          "score": 0
        }
      ],
      "sumTop": "女王",
      "control": [
        {
          "word": "女王",
          "score": 0.667
        },
        {
          "word": "男人",
          "score": 0.408
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "kingNeighbours": [
        {
          "word": "女王",
          "score": 0.667
        },
        {
          "word": "男人",
          "score": 0.408
        },
        {
          "word": "一只",
          "score": 0
        }
      ],
      "pApple": 1,
      "carToAnimals": 0.24
    },
    "ppmi": {
      "note": "no training: PPMI with the word before and the word after, cut to the model's dim by an SVD (default corpus)",
      "catDog": 0.981,
      "catCar": 0.222,
      "groupGap": 0.769,
      "nearestIsAnimal": true,
      "animalsApart": true,
      "analogyTop": "女王",
      "sumTop": "裙子",
      "sumRank": 2
    }
  }
});

/** '0.59 to 0.90 (median 0.75)' */
export function formatRange(r, digits = 2) {
  return `${r.min.toFixed(digits)} to ${r.max.toFixed(digits)} (median ${r.median.toFixed(digits)})`;
}

/** '27 of 30' */
export function formatCount(c) {
  return `${c.count} of ${c.of}`;
}

function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
